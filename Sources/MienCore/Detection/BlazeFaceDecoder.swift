import RealModule

/// Turns BlazeFace's raw outputs into detections, as MediaPipe's `TensorsToDetectionsCalculator` does.
///
/// The model emits, per anchor, 16 regressor values (box centre x, y, width, height, then six keypoints
/// as x, y pairs, all in tensor pixels relative to the anchor) and one classification logit.
package struct BlazeFaceDecoder: Sendable {
    /// Values per anchor in the regressor output: 4 box values + 6 keypoints x 2.
    package static let valuesPerAnchor = 16
    /// Logits are clipped to this magnitude before the sigmoid (MediaPipe's `score_clipping_thresh`),
    /// which keeps `exp` finite on corrupt outputs.
    package static let logitClip = 100.0

    package let anchors: [Anchor]
    /// The model's input size in pixels: regressor values are divided by it to normalise them.
    package let inputWidth: Double
    package let inputHeight: Double

    package init(options: SSDAnchorOptions) {
        anchors = options.anchors()
        inputWidth = Double(options.inputWidth)
        inputHeight = Double(options.inputHeight)
    }

    /// Decodes every anchor whose score reaches `minimumScore`.
    /// - Parameters:
    ///   - regressors: `anchors.count * 16` floats.
    ///   - logits: `anchors.count` floats.
    ///   - minimumScore: 0...1.
    /// - Returns: detections in *tensor pixels* (0...inputWidth, 0...inputHeight), unsorted, not suppressed.
    package func decode(regressors: [Float], logits: [Float], minimumScore: Double) -> [FaceDetection] {
        let count = min(anchors.count, logits.count, regressors.count / Self.valuesPerAnchor)
        // Compare logits, not probabilities, so the sigmoid runs only for anchors that pass.
        let threshold = logit(minimumScore)
        var detections: [FaceDetection] = []
        for i in 0..<count {
            let raw = min(max(Double(logits[i]), -Self.logitClip), Self.logitClip)
            guard raw >= threshold else { continue }
            let anchor = anchors[i]
            let base = i * Self.valuesPerAnchor
            func x(_ k: Int) -> Double { Double(regressors[base + k]) / inputWidth * anchor.width + anchor.centerX }
            func y(_ k: Int) -> Double { Double(regressors[base + k]) / inputHeight * anchor.height + anchor.centerY }
            let centerX = x(0)
            let centerY = y(1)
            let width = Double(regressors[base + 2]) / inputWidth * anchor.width
            let height = Double(regressors[base + 3]) / inputHeight * anchor.height
            guard width > 0, height > 0, centerX.isFinite, centerY.isFinite else { continue }
            var keypoints: [Point] = []
            keypoints.reserveCapacity(FaceDetection.Keypoint.allCases.count)
            for k in 0..<FaceDetection.Keypoint.allCases.count {
                keypoints.append(Point(x: x(4 + 2 * k) * inputWidth, y: y(5 + 2 * k) * inputHeight))
            }
            let bounds = Rect(
                x: (centerX - width / 2) * inputWidth, y: (centerY - height / 2) * inputHeight,
                width: width * inputWidth, height: height * inputHeight)
            detections.append(FaceDetection(bounds: bounds, keypoints: keypoints, confidence: logistic(raw)))
        }
        return detections
    }

    private func logit(_ p: Double) -> Double {
        if p <= 0 { return -Double.infinity }
        if p >= 1 { return Double.infinity }
        return Double.log(p / (1 - p))
    }
}
