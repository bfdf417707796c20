/// One metric a `Detector` can be asked for (Affdex's classifier switches: `setDetectSmile`,
/// `setDetectJoy`, `setDetectGender`, ...).
///
/// Metrics not asked for are absent (nil) from results, never 0,
/// and the stages only they need do not run.
public enum Metric: Hashable, Sendable {
    /// One of the 21 expressions (Affdex `setDetectSmile`, ...), 0...100.
    case expression(FacialExpression)
    /// One of the 14 emoji (`setDetectLaughing`, ...), 0...100.
    case emoji(Emoji)
    /// One of the 7 emotions, contempt and neutral (`setDetectJoy`, ...), 0...100.
    case emotion(Emotion)
    /// Valence (-100...100, how positive) and engagement (0...100, how expressive).
    case valence, engagement
    /// Perceived gender, apparent age bracket and glasses.
    case gender, age, glasses
    /// Where the person looks (`Gaze`: degrees, both eyes and each eye, and the eyes' rotation in the head).
    case gaze
    /// A metric its catalog entry measures itself (`MetricDescriptor.measured`), by its name (`lipTighten`):
    /// its value is in `FaceResult.measures`. Each such entry switches on with its group.
    case measured(String)
}

extension Set where Element == Metric {
    /// The 21 expressions (Affdex `setDetectAllExpressions`): the `expressions` group.
    public static var allExpressions: Set<Metric> { MetricGroup.expressions.metrics }
    /// The 14 emoji (`setDetectAllEmojis`): the `emoji` group.
    public static var allEmoji: Set<Metric> { MetricGroup.emoji.metrics }
    /// The 7 emotions, neutral, valence and engagement (`setDetectAllEmotions`): the `emotions` group.
    public static var allEmotions: Set<Metric> { MetricGroup.emotions.metrics }
    /// Gender, age and glasses (`setDetectAllAppearances`): the `appearance` group.
    public static var allAppearance: Set<Metric> { MetricGroup.appearance.metrics }
    /// Everything: every group.
    public static var all: Set<Metric> { Set(MetricCatalog.entries.compactMap(\.metric)) }
}
