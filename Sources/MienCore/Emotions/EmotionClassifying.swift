/// A CNN that scores the 7 basic emotions from a face's pixels, looking at the face through several
/// views (crops of different sizes, each averaged with its mirror image).
///
/// A picture is scored on all its views at once (`probabilities(in:points:)`). In a stream, the
/// `AffectStage` runs one view per frame, in turn, and averages the last `viewCount` frames
/// (`EmotionViewWindow`): the same views at a fraction of the cost per frame.
package protocol EmotionClassifying {
    /// How many views of the face with mesh `points` this classifier has in `frame` (at least 1).
    func viewCount(in frame: Frame, points: [Point3D]) -> Int

    /// Probabilities (summing to 1) in `FacialEmotionCNN.classes` order from view `view`
    /// (0..<`viewCount`) of the face with mesh `points` (frame pixels) in `frame`.
    func probabilities(in frame: Frame, points: [Point3D], view: Int) throws -> [Double]
}

extension EmotionClassifying {
    /// The mean probabilities over every view of the face.
    package func probabilities(in frame: Frame, points: [Point3D]) throws -> [Double] {
        let count = viewCount(in: frame, points: points)
        var sum = [Double](repeating: 0, count: FacialEmotionCNN.classes.count)
        for view in 0..<count {
            sum = zip(sum, try probabilities(in: frame, points: points, view: view)).map(+)
        }
        return sum.map { $0 / Double(max(count, 1)) }
    }
}

/// The classes of fer's CNN, in its output order.
package enum FacialEmotionCNN {
    package static let classes: [Emotion] = [.anger, .disgust, .fear, .joy, .sadness, .surprise, .neutral]
}
