import Mien

/// One line of `mien detect` output.
///
/// Coordinates are frame pixels, rounded to 0.01 px; timestamp is
/// seconds; confidence is 0...1.
struct DetectionRecord: Encodable {
    struct Bounds: Encodable {
        var x, y, width, height: Double
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
        timestamp = Self.rounded(frame.timestamp, places: 3)
        width = frame.width
        height = frame.height
        self.faces = faces.map { face in
            Face(
                bounds: Bounds(
                    x: Self.rounded(face.bounds.x), y: Self.rounded(face.bounds.y),
                    width: Self.rounded(face.bounds.width), height: Self.rounded(face.bounds.height)),
                confidence: Self.rounded(face.confidence, places: 4),
                keypoints: Dictionary(
                    uniqueKeysWithValues: FaceDetection.Keypoint.allCases.map { k in
                        (k.name, [Self.rounded(face[k].x), Self.rounded(face[k].y)])
                    }))
        }
    }

    private static func rounded(_ value: Double, places: Int = 2) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
