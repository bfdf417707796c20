public import MienCore

/// Runs MediaPipe's FaceMesh v2 on an upright 256 x 256 crop of a face region and maps its 478 points
/// back to frame pixels.
///
/// - Important: Not reentrant: one `mesh(in:region:)` at a time.
public final class FaceMeshEstimator: FaceMeshEstimating {
    /// The model's input side in pixels.
    public static let inputSize = 256
    private let network: NeuralNetwork
    /// MediaPipe's landmark-model normalisation: RGB, pixel / 255.
    private static let spec = TensorSpec(
        width: inputSize, height: inputSize, channels: 3, rgb: true, scale: 1 / 255, offset: 0, border: 0)

    /// Loads and verifies the mesh model.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    public init(models: ModelStore) throws {
        let model = ModelDescriptor.faceMesh
        network = try NeuralNetwork(
            bytes: models.bytes(of: model), name: model.fileName,
            outputs: Array(zip(model.outputNames, model.outputCounts)))
    }

    public func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh {
        let cropFromFrame = region.cropFromFrame(side: Self.inputSize)
        guard let frameFromCrop = cropFromFrame.inverted else {
            throw MienError(.invalidArgument, "face region has no area")
        }
        let outputs = try network.run(frame, tensorFromFrame: cropFromFrame, spec: Self.spec)
        guard outputs.count == 2, outputs[0].count == FaceLandmark.count * 3, let logit = outputs[1].first else {
            throw MienError(.modelInvalid, "unexpected mesh outputs", input: network.name)
        }
        let depthScale = region.size / Double(Self.inputSize)
        var points: [Point3D] = []
        points.reserveCapacity(FaceLandmark.count)
        let raw = outputs[0]
        for i in 0..<FaceLandmark.count {
            let p = frameFromCrop.apply(Point(x: Double(raw[3 * i]), y: Double(raw[3 * i + 1])))
            points.append(Point3D(x: p.x, y: p.y, z: Double(raw[3 * i + 2]) * depthScale))
        }
        let presence = logistic(Double(logit))
        return FaceMesh(points: points, presence: presence, region: region)
    }
}
