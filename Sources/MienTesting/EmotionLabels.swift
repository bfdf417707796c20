public import Mien

extension LabelledExpression {
    /// Data-set emotion labels (FER-2013, muxspace, JAFFE spellings) to Mien's emotions.
    public static let emotionLabels: [String: Emotion] = [
        "angry": .anger, "anger": .anger, "disgust": .disgust, "fear": .fear, "happy": .joy, "happiness": .joy,
        "sad": .sadness, "sadness": .sadness, "surprise": .surprise, "neutral": .neutral, "contempt": .contempt,
    ]

    /// The label as one of Mien's emotions, or nil when it names none (muxspace's few other labels).
    public var emotion: Emotion? { Self.emotionLabels[label] }
}
