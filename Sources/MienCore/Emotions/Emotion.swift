/// Affdex's seven emotions, plus neutral (the share of the face showing none of them).
public enum Emotion: String, ScoreKey {
    case anger, contempt, disgust, fear, joy, sadness, surprise, neutral

    /// The emotions whose presence makes valence negative.
    public static let negative: [Emotion] = [.anger, .contempt, .disgust, .fear, .sadness]
}
