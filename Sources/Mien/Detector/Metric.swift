/// One metric a `Detector` can be asked for (Affdex's classifier switches: `setDetectSmile`,
/// `setDetectJoy`, `setDetectGender`, ...).
///
/// Metrics not asked for are absent (nil) from results, never 0,
/// and the stages only they need do not run.
public enum Metric: Hashable, Sendable {
    case expression(FacialExpression)
    case emoji(Emoji)
    case emotion(Emotion)
    case valence, engagement
    case gender, age, glasses
    /// Where the person looks (`Gaze`: degrees, both eyes and each eye, and the eyes' rotation in the head).
    case gaze
}

extension Set where Element == Metric {
    /// The 21 expressions (Affdex `setDetectAllExpressions`).
    public static var allExpressions: Set<Metric> { Set(FacialExpression.allCases.map(Metric.expression)) }
    /// The 14 emoji (`setDetectAllEmojis`).
    public static var allEmoji: Set<Metric> { Set(Emoji.allCases.map(Metric.emoji)) }
    /// The 7 emotions, neutral, valence and engagement (`setDetectAllEmotions`).
    public static var allEmotions: Set<Metric> {
        Set(Emotion.allCases.map(Metric.emotion)).union([.valence, .engagement])
    }
    /// Gender, age and glasses (`setDetectAllAppearances`).
    public static var allAppearance: Set<Metric> { [.gender, .age, .glasses] }
    /// Everything.
    public static var all: Set<Metric> {
        allExpressions.union(allEmoji).union(allEmotions).union(allAppearance).union([.gaze])
    }
}
