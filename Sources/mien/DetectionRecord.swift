import Mien

/// One line of `mien detect --detector-only` output.
///
/// Coordinates are frame pixels, rounded to 0.01 px; timestamp is
/// seconds; confidence is 0...1.
struct DetectionRecord: Encodable {
    struct Bounds: Encodable {
        var x, y, width, height: Double

        init(_ rect: Rect) {
            x = Rounding.round(rect.x)
            y = Rounding.round(rect.y)
            width = Rounding.round(rect.width)
            height = Rounding.round(rect.height)
        }
    }
    struct Face: Encodable {
        var bounds: Bounds
        var confidence: Double
        /// BlazeFace's six keypoints as `[x, y]`, keyed by name (the person's left and right).
        var keypoints: [String: [Double]]
    }

    var input: String
    var frame: Int
    var timestamp: Double
    var width: Int
    var height: Int
    var faces: [Face]

    init(input: String, frame: Frame, faces: [FaceDetection]) {
        self.input = input
        self.frame = frame.index
        timestamp = Rounding.round(frame.timestamp, places: 3)
        width = frame.width
        height = frame.height
        self.faces = faces.map { face in
            Face(
                bounds: Bounds(face.bounds),
                confidence: Rounding.round(face.confidence, places: 4),
                keypoints: Dictionary(
                    uniqueKeysWithValues: FaceDetection.Keypoint.allCases.map { k in
                        (k.name, [Rounding.round(face[k].x), Rounding.round(face[k].y)])
                    }))
        }
    }
}
