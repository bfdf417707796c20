/// The emotions of one face in one frame: each 0...100, valence −100...100 and engagement 0...100.
///
/// Encodes as a JSON object with one key per present emotion plus `valence` and `engagement`.
package struct Emotions: Sendable, Equatable, Codable {
    /// anger, disgust, fear, joy, sadness, surprise and neutral share 100 between them (a fused
    /// probability); contempt is scored on its own from asymmetric expressions.
    package var scores: Scores<Emotion>
    /// From −100 (very negative) to 100 (very positive).
    package var valence: Double
    /// Affdex's engagement (expressiveness): how strongly the face moves, 0...100.
    package var engagement: Double

    package init(scores: Scores<Emotion>, valence: Double, engagement: Double) {
        self.scores = scores
        self.valence = valence
        self.engagement = engagement
    }

    /// The score of `emotion`, or nil when absent.
    package subscript(_ emotion: Emotion) -> Double? { scores[emotion] }

    /// The emotion with the highest score other than neutral, or `.neutral` when neutral is highest.
    package var dominant: Emotion? { scores.maximum?.key }

    private enum CodingKeys: String, CodingKey { case valence, engagement }

    package init(from decoder: any Decoder) throws {
        scores = try Scores(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        valence = try container.decode(Double.self, forKey: .valence)
        engagement = try container.decode(Double.self, forKey: .engagement)
    }

    package func encode(to encoder: any Encoder) throws {
        try scores.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(valence, forKey: .valence)
        try container.encode(engagement, forKey: .engagement)
    }
}
