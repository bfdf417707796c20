/// CNNs that estimate perceived gender and apparent age from a face's pixels.
package protocol AppearanceClassifying {
    /// Probability (0...1) that the face with mesh `points` (frame pixels) in `frame` is perceived as male.
    func maleProbability(in frame: Frame, points: [Point3D]) throws -> Double
    /// Apparent age in years (the expectation of the model's age distribution).
    func age(in frame: Frame, points: [Point3D]) throws -> Double
}
