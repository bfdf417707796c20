/// One face in one processed frame, as a `Detector` reports it: only the metrics that were asked for are
/// present; the rest are nil (and absent from JSON).
///
/// Coordinates are frame pixels (top-left origin), angles degrees, scores 0...100 (valence −100...100).
public struct FaceResult: Sendable, Equatable, Codable {
    /// Stable while the face stays tracked (Affdex `faceId`).
    public var faceId: Int
    /// The box around the face, frame pixels.
    public var faceBounds: Rect
    /// Affdex's 34 facial points in Affdex order (`AffdexFacePoints`), frame pixels.
    public var facePoints: [Point]
    /// Yaw, pitch, roll (degrees) and interocular distance (pixels).
    public var orientation: HeadPose?
    /// Brightness and size of the face.
    public var quality: FaceQuality?
    /// Why the expressions, emoji and emotions may be wrong in this frame (empty when trusted).
    public var flags: [QualityFlag]
    /// The expressions asked for (with their left/right sides).
    public var expressions: Expressions?
    /// The emoji asked for; `dominantEmoji` is chosen among them.
    public var emoji: EmojiScores?
    /// The emotions asked for.
    public var emotions: Scores<Emotion>?
    public var valence: Double?
    public var engagement: Double?
    /// Perceived gender, when asked for.
    public var gender: Gender?
    /// Affdex's age bracket, when asked for.
    public var age: AgeBracket?
    /// Apparent age in years, with `age`.
    public var ageYears: Double?
    /// Whether the face wears glasses, when asked for.
    public var glasses: Bool?

    /// The parts of `face` that `metrics` ask for.
    init(_ face: TrackedFace, metrics: Set<Metric>) {
        faceId = face.faceId
        faceBounds = face.bounds
        facePoints = AffdexFacePoints.points(of: face.mesh)
        orientation = face.pose
        quality = face.quality
        flags = face.flags
        var expressionKeys = Set<FacialExpression>()
        var emojiKeys = Set<Emoji>()
        var emotionKeys = Set<Emotion>()
        for metric in metrics {
            switch metric {
            case .expression(let e): expressionKeys.insert(e)
            case .emoji(let e): emojiKeys.insert(e)
            case .emotion(let e): emotionKeys.insert(e)
            default: break
            }
        }
        expressions = expressionKeys.isEmpty ? nil : face.expressions?.keeping(expressionKeys)
        emoji = emojiKeys.isEmpty ? nil : face.emoji.map { EmojiScores(scores: $0.scores.keeping(emojiKeys)) }
        emotions = emotionKeys.isEmpty ? nil : face.emotions?.scores.keeping(emotionKeys)
        valence = metrics.contains(.valence) ? face.emotions?.valence : nil
        engagement = metrics.contains(.engagement) ? face.emotions?.engagement : nil
        gender = metrics.contains(.gender) ? face.appearance?.gender : nil
        age = metrics.contains(.age) ? face.appearance?.ageBracket : nil
        ageYears = metrics.contains(.age) ? face.appearance?.age : nil
        glasses = metrics.contains(.glasses) ? face.appearance?.glasses : nil
    }
}
