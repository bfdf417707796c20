package import MienCore

/// Finds faces with MediaPipe's BlazeFace models (`FaceMode.large`: short range at 128 x 128;
/// `.small`: full range at 192 x 192 on the whole frame and on overlapping tiles).
///
/// Each region is letterboxed into the model's input (aspect kept, centred, black padding), decoded
/// against the SSD anchors, mapped back to frame pixels, and all regions' detections are merged with
/// MediaPipe's weighted non-max suppression.
///
/// - Important: Not reentrant: one `detect(in:)` at a time (the networks keep per-call state).
package final class BlazeFaceDetector: FaceDetecting {
    package let options: DetectionOptions
    private let network: NeuralNetwork
    private let decoder: BlazeFaceDecoder
    private let inputSize: Int
    private let tiles: TilePlan?
    private let suppression: WeightedNonMaxSuppression

    /// MediaPipe's BlazeFace input normalisation: RGB, pixel / 127.5 - 1.
    private static func tensorSpec(size: Int) -> TensorSpec {
        // MediaPipe's TensorFlow Lite model, read as shipped: height, width, channel order (NHWC).
        TensorSpec(
            width: size, height: size, channels: 3, rgb: true, scale: 1 / 127.5, offset: -1, border: 0,
            interleaved: true)
    }

    /// Affdex's smallest detectable face is about 30 px; tiles are planned so faces of this width
    /// (frame pixels) stay large enough for the full-range model.
    package static let smallModeMinimumFace = 30.0
    /// Face width (model input pixels) that the full-range model still finds reliably at 192 x 192.
    ///
    /// Measured by padding dlib's labelled example photos onto larger canvases (no tiling): recall is
    /// 0 % below 6 px, 12 % at 6-8 px, 59 % at 8-10 px, 90 % at 10-14 px, 96 % at 14-16 px and 100 %
    /// from 16 px (issue 2 note). 14 px keeps tiling to 1 + 3 x 2 runs at 720p.
    static let fullRangeReliableFace = 14.0
    /// Tiles per axis at most, bounding SMALL_FACES cost on very large frames to 1 + 3 x 3 model runs.
    static let maximumTilesPerAxis = 3

    /// The model a face mode runs: short range for `.large`, full range for `.small`.
    package static func model(for faceMode: FaceMode) -> ModelDescriptor {
        switch faceMode {
        case .large: .blazeFaceShortRange
        case .small: .blazeFaceFullRange
        }
    }

    /// Loads and verifies the model `options.faceMode` needs.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the model file.
    package init(options: DetectionOptions, models: ModelStore) throws {
        self.options = options
        let descriptor: ModelDescriptor
        let anchors: SSDAnchorOptions
        switch options.faceMode {
        case .large:
            (descriptor, anchors) = (.blazeFaceShortRange, .blazeFaceShortRange)
            tiles = nil
        case .small:
            (descriptor, anchors) = (.blazeFaceFullRange, .blazeFaceFullRange)
            tiles = TilePlan(
                minimumFaceSize: Self.smallModeMinimumFace, modelMinimumFace: Self.fullRangeReliableFace,
                modelInput: Double(anchors.inputWidth), maximumTilesPerAxis: Self.maximumTilesPerAxis)
        }
        network = try NeuralNetwork(descriptor, store: models)
        decoder = BlazeFaceDecoder(options: anchors)
        inputSize = anchors.inputWidth
        suppression = WeightedNonMaxSuppression(threshold: options.suppressionThreshold)
    }

    /// Margin added on every side, as a share of the frame's size, for the zoomed-out second look.
    ///
    /// BlazeFace misses faces that fill the whole picture (tight face crops such as LFW's or
    /// fer2013's): the short-range model was trained on faces up to about half its input. When the
    /// first pass finds nothing the frame is looked at again inside a black margin of half its size on
    /// each side, which brings such a face to half the input. It costs one more model run, and only on
    /// frames where no face was found.
    package static let zoomOutMargin = 0.5
    /// Least confidence of a face found only by the zoomed-out look: a second look at a frame with no
    /// face is a second chance for a false one (dlib's dogs photo gives a dog at 0.51), while 95 % of
    /// the tight face crops of the dev data score above 0.61.
    package static let zoomOutMinimumConfidence = 0.6

    package func detect(in frame: Frame) throws -> [FaceDetection] {
        let regions = tiles?.regions(width: frame.width, height: frame.height) ?? [frame.bounds]
        let found = try detect(in: frame, regions: regions)
        guard found.isEmpty else { return found }
        let (w, h) = (Double(frame.width), Double(frame.height))
        let zoomedOut = Rect(
            x: -w * Self.zoomOutMargin, y: -h * Self.zoomOutMargin, width: w * (1 + 2 * Self.zoomOutMargin),
            height: h * (1 + 2 * Self.zoomOutMargin))
        let minimum = max(options.minimumConfidence, Self.zoomOutMinimumConfidence)
        return try detect(in: frame, regions: [zoomedOut]).filter { $0.confidence >= minimum }
    }

    /// Runs the model on each region (the first is the whole frame or its zoomed-out view) and merges.
    private func detect(in frame: Frame, regions: [Rect]) throws -> [FaceDetection] {
        var candidates: [FaceDetection] = []
        for (index, region) in regions.enumerated() {
            let letterbox = Letterbox(region: region, width: inputSize, height: inputSize)
            let outputs = try network.run(
                frame, tensorFromFrame: letterbox.tensorFromFrame, spec: Self.tensorSpec(size: inputSize))
            guard outputs.count == 2 else { throw MienError(.modelInvalid, "expected 2 outputs", input: network.name) }
            let found = decoder.decode(
                regressors: outputs[0], logits: outputs[1], minimumScore: options.minimumConfidence)
            for detection in found {
                let mapped = detection.mapped(by: letterbox.frameFromTensor)
                // A tile cuts faces at its inner edges; such partial boxes would drag the merged box
                // off the face, and the whole face is seen by a neighbouring tile or the whole frame.
                if index > 0, Self.touchesInnerEdge(mapped.bounds, tile: region, frame: frame.bounds) { continue }
                candidates.append(mapped)
            }
        }
        return suppression.apply(candidates, limit: options.maximumFaces)
    }

    /// Whether `box` reaches an edge of `tile` that is not also an edge of the frame.
    private static func touchesInnerEdge(_ box: Rect, tile: Rect, frame: Rect) -> Bool {
        let margin = 2.0
        return (box.minX <= tile.minX + margin && tile.minX > frame.minX)
            || (box.minY <= tile.minY + margin && tile.minY > frame.minY)
            || (box.maxX >= tile.maxX - margin && tile.maxX < frame.maxX)
            || (box.maxY >= tile.maxY - margin && tile.maxY < frame.maxY)
    }
}
