/// The emoji of one face in one frame: each 0...100, and the dominant one.
///
/// Encodes as a JSON object with one key per present emoji plus `dominantEmoji`: the Unicode emoji,
/// or `"none"` when no emoji reaches `dominanceThreshold`.
public struct EmojiScores: Sendable, Equatable, Codable {
    /// Scores of the present emoji (the tongue emoji are absent when the tongue cannot be seen, as in
    /// grayscale pictures).
    public var scores: Scores<Emoji>

    /// An emoji must score at least this to be dominant: a face that merely leans toward an emoji has
    /// none.
    public static let dominanceThreshold = 50.0

    public init(scores: Scores<Emoji>) { self.scores = scores }

    /// The score of `emoji`, or nil when absent.
    public subscript(_ emoji: Emoji) -> Double? { scores[emoji] }

    /// Affdex 3.x's dominant emoji: the highest present score if it reaches `dominanceThreshold`.
    public var dominantEmoji: Emoji? {
        scores.maximum.flatMap { $0.value >= Self.dominanceThreshold ? $0.key : nil }
    }

    private enum CodingKeys: String, CodingKey { case dominantEmoji }

    public init(from decoder: any Decoder) throws { scores = try Scores(from: decoder) }

    public func encode(to encoder: any Encoder) throws {
        try scores.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dominantEmoji?.unicode ?? "none", forKey: .dominantEmoji)
    }
}
