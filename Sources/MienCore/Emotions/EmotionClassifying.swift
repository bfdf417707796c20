/// A CNN that scores the 7 basic emotions from a face's pixels.
public protocol EmotionClassifying {
    /// Probabilities (summing to 1) in `FacialEmotionCNN.classes` order for the face with mesh `points`
    /// (frame pixels) in `frame`.
    func probabilities(in frame: Frame, points: [Point3D]) throws -> [Double]
}

/// The classes of fer's CNN, in its output order.
public enum FacialEmotionCNN {
    public static let classes: [Emotion] = [.anger, .disgust, .fear, .joy, .sadness, .surprise, .neutral]
}
