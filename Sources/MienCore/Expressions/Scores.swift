/// A set of named scores where each one is either measured or absent.
///
/// Absent means "not enabled" or "not measurable here", never 0: a score of 0 is a measurement. Encodes
/// as a JSON object whose keys are the raw names of the scores that are present.
public struct Scores<Key: ScoreKey>: Sendable, Equatable, Codable {
    private var values: [Double?]

    /// No score present.
    public init() { values = Array(repeating: nil, count: Key.allCases.count) }

    /// The given scores; keys not in `scores` are absent.
    public init(_ scores: [Key: Double]) {
        self.init()
        for (key, value) in scores { self[key] = value }
    }

    /// The score of `key`, or nil when absent.
    public subscript(_ key: Key) -> Double? {
        get { values[key.position] }
        set { values[key.position] = newValue }
    }

    /// The present scores in `Key.allCases` order.
    public var present: [(key: Key, value: Double)] {
        zip(Key.allCases, values).compactMap { key, value in value.map { (key, $0) } }
    }

    /// Whether no score is present.
    public var isEmpty: Bool { values.allSatisfy { $0 == nil } }

    /// The present score with the highest value (the first in `allCases` order on a tie), or nil.
    public var maximum: (key: Key, value: Double)? {
        present.reduce(nil) { best, item in
            if let best, best.value >= item.value { return best }
            return item
        }
    }

    /// Keeps only the scores of `keys`; the rest become absent.
    public func keeping(_ keys: Set<Key>) -> Scores {
        var kept = Scores()
        for (key, value) in present where keys.contains(key) { kept[key] = value }
        return kept
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: NameCodingKey.self)
        for key in Key.allCases {
            self[key] = try container.decodeIfPresent(Double.self, forKey: NameCodingKey(stringValue: key.rawValue))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameCodingKey.self)
        for (key, value) in present { try container.encode(value, forKey: NameCodingKey(stringValue: key.rawValue)) }
    }
}
