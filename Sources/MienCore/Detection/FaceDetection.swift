/// A face found by the detector in one frame, before any tracking or landmarking.
public struct FaceDetection: Sendable, Equatable, Codable {
    /// The six keypoints BlazeFace predicts, in its order.
    ///
    /// Left and right are the *person's*: the
    /// person's right eye appears on the left of an unmirrored image.
    public enum Keypoint: Int, CaseIterable, Sendable, Codable {
        case rightEye = 0
        case leftEye, noseTip, mouthCenter, rightEarTragion, leftEarTragion

        /// The JSON field name.
        public var name: String {
            switch self {
            case .rightEye: "rightEye"
            case .leftEye: "leftEye"
            case .noseTip: "noseTip"
            case .mouthCenter: "mouthCenter"
            case .rightEarTragion: "rightEarTragion"
            case .leftEarTragion: "leftEarTragion"
            }
        }
    }

    /// The face box in pixels of the original frame (top-left origin).
    ///
    /// It may extend past the frame's
    /// edges for a face that is partly out of view.
    public var bounds: Rect
    /// The six keypoints in frame pixels, indexed by `Keypoint.rawValue`.
    public var keypoints: [Point]
    /// Detector confidence, 0...1 (sigmoid of the model's logit; weighted NMS keeps the best of a cluster).
    public var confidence: Double

    public init(bounds: Rect, keypoints: [Point], confidence: Double) {
        self.bounds = bounds
        self.keypoints = keypoints
        self.confidence = confidence
    }

    /// The keypoint `k` in frame pixels.
    public subscript(_ k: Keypoint) -> Point { keypoints[k.rawValue] }

    /// The same detection moved through `transform` (box re-fitted around its mapped corners).
    package func mapped(by transform: AffineTransform) -> FaceDetection {
        let p0 = transform.apply(Point(x: bounds.minX, y: bounds.minY))
        let p1 = transform.apply(Point(x: bounds.maxX, y: bounds.maxY))
        return FaceDetection(
            bounds: Rect(corners: p0, p1), keypoints: keypoints.map(transform.apply), confidence: confidence)
    }
}
