import Mien

/// One line of `mien detect` output with tracking.
///
/// Coordinates are frame pixels rounded to 0.01 px,
/// angles degrees rounded to 0.01°, timestamp seconds, confidence 0...1. Field names follow Affdex.
struct AnalysisRecord: Encodable {
    struct Orientation: Encodable {
        var yaw, pitch, roll, interocularDistance: Double
    }
    struct Face: Encodable {
        var faceId: Int
        var bounds: DetectionRecord.Bounds
        var confidence: Double
        var orientation: Orientation?
        /// Affdex's 34 facial points as `[x, y]` in Affdex order (see `AffdexFacePoints`).
        var facePoints: [[Double]]
        /// The 478 mesh points as `[x, y, z]`, only with `--landmarks`.
        var mesh: [[Double]]?
        /// The 68 points of the iBUG 300-W / dlib layout as `[x, y]` (see `Ibug68Points`), only with
        /// `--landmarks`.
        var points68: [[Double]]?
        /// Brightness 0...100 and size in pixels of the face.
        var quality: Quality?
        /// Why the expressions may be wrong here (absent when they can be trusted).
        var flags: [QualityFlag]?
        /// The 21 expressions 0...100 with `left` / `right` sides, only with `--expressions`.
        var expressions: Expressions?
        /// The 14 emoji 0...100 and `dominantEmoji`, only with `--expressions`.
        var emoji: EmojiScores?
        /// The 7 emotions and contempt 0...100, valence and engagement, only with `--emotions`.
        var emotions: Emotions?
        /// Gender, age and glasses, only with `--appearance`.
        var appearance: Appearance?
        /// MediaPipe's 52 blendshapes 0...1 by name, only with `--blendshapes`.
        var blendshapes: [String: Double]?
    }
    struct Quality: Encodable {
        var brightness, size: Double
    }
    struct Event: Encodable {
        var event: String
        var faceId: Int
    }
    struct FaceCount: Encodable {
        var status: String
        var totalFaces: Int
        var totalFacesChangedFrom: Int?
        var fullFrameDetection: Bool
    }

    var input: String
    var frame: Int
    var timestamp: Double
    var width: Int
    var height: Int
    var faces: [Face]
    var events: [Event]?
    var faceCount: FaceCount?

    init(input: String, analysis: FrameAnalysis, landmarks: Bool, blendshapes: Bool = false) {
        self.input = input
        frame = analysis.frameIndex
        timestamp = Rounding.round(analysis.timestamp, places: 3)
        width = analysis.width
        height = analysis.height
        faces = analysis.faces.map { face in
            Face(
                faceId: face.faceId, bounds: DetectionRecord.Bounds(face.bounds),
                confidence: Rounding.round(face.confidence, places: 4),
                orientation: face.pose.map {
                    Orientation(
                        yaw: Rounding.round($0.yaw), pitch: Rounding.round($0.pitch), roll: Rounding.round($0.roll),
                        interocularDistance: Rounding.round($0.interocularDistance))
                },
                facePoints: AffdexFacePoints.points(of: face.mesh).map {
                    [Rounding.round($0.x), Rounding.round($0.y)]
                },
                mesh: landmarks
                    ? face.mesh.points.map { [Rounding.round($0.x), Rounding.round($0.y), Rounding.round($0.z)] } : nil,
                points68: landmarks
                    ? Ibug68Points.points(of: face.mesh).map { [Rounding.round($0.x), Rounding.round($0.y)] } : nil,
                quality: face.quality.map {
                    Quality(brightness: Rounding.round($0.brightness), size: Rounding.round($0.size))
                },
                flags: face.flags.isEmpty ? nil : face.flags, expressions: face.expressions, emoji: face.emoji,
                emotions: face.emotions, appearance: face.appearance,
                blendshapes: blendshapes
                    ? face.blendshapes.map { shapes in
                        Dictionary(
                            uniqueKeysWithValues: zip(
                                Blendshapes.names, shapes.scores.map { Rounding.round($0, places: 4) }))
                    } : nil)
        }
        if let count = analysis.faceCount {
            events = analysis.events.map { event in
                switch event {
                case .found(let id): Event(event: "found", faceId: id)
                case .lost(let id): Event(event: "lost", faceId: id)
                }
            }
            faceCount = FaceCount(
                status: count.status.rawValue, totalFaces: count.totalFaces,
                totalFacesChangedFrom: count.totalFacesChangedFrom, fullFrameDetection: analysis.fullFrameDetection)
        }
    }
}

/// Rounding for output: more digits than this are noise.
enum Rounding {
    static func round(_ value: Double, places: Int = 2) -> Double { value.rounded(toPlaces: places) }
}
