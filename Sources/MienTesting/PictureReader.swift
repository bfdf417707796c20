public import Mien

/// Reads labelled pictures the way users' pictures are read: a `Detector` on unrelated pictures (`mien analyze`
/// on a picture or a folder, `mien.Detector` on images), so that what `make eval` and the accuracy tests score is
/// the `FaceResult` users get, through the same stages, options and delivery.
///
/// `MienCLITests.EvalPathTests` checks it: a picture's scores here equal `mien analyze`'s for the same picture and
/// options.
public final class PictureReader {
    /// What is measured: the options `mien analyze` builds from the same flags.
    public let options: DetectorOptions
    private let detector: Detector

    /// Loads the models the options need and starts the detector.
    /// - Throws: `MienError` naming a missing or altered model.
    public init(options: DetectorOptions, models: ModelStore) throws {
        self.options = options
        detector = Detector(source: .discreteImages, options: options, models: models)
        try detector.start()
    }

    /// The eval's usual reader: up to 4 faces with the full-range detector (`--face-mode small --max-faces 4`),
    /// the given metric groups, and (`features`) the mesh and blendshapes that the cross-validations read.
    /// - Parameters:
    ///   - wholePictureFallback: whether a picture where nothing is detected is read as one face crop (the default,
    ///     as `mien analyze`'s).
    ///   - features: whether results carry the mesh, the 68 points and the blendshapes (`--landmarks
    ///     --blendshapes`), which change no score.
    public convenience init(
        groups: [MetricGroup], wholePictureFallback: Bool = true, features: Bool = true, models: ModelStore
    ) throws {
        try self.init(
            options: DetectorOptions(
                detection: DetectionOptions(
                    faceMode: .small, maximumFaces: 4, wholePictureFallback: wholePictureFallback),
                metrics: MetricGroup.metrics(named: groups.isEmpty ? ["none"] : groups.map(\.rawValue)),
                landmarks: features, blendshapes: features),
            models: models)
    }

    /// The picture's result, as `mien analyze` reports it.
    /// - Throws: `MienError` naming the picture when it cannot be decoded.
    public func read(_ path: String) throws -> DetectorResult {
        try detector.process(ImageDecoder.decode(file: path))
    }

    /// The largest face in the picture, nil when none is found.
    public func largestFace(_ path: String) throws -> FaceResult? {
        try read(path).largestFace
    }

    deinit {
        detector.stop()
    }
}
