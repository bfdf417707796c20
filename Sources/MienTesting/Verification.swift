/// Face verification statistics on descriptor distances (smaller = more alike): the threshold for a
/// false-match rate, and accept rates.
public enum Verification {
    /// The largest distance threshold at which at most `rate` (0...1) of `different` would be accepted.
    ///
    /// `different` are distances between two people; accepted means `distance <= threshold`. The threshold
    /// lies halfway between the last accepted and the first refused distance; nil when `different` is empty.
    public static func threshold(falseMatchRate rate: Double, different: [Double]) -> Double? {
        let sorted = different.sorted()
        guard let first = sorted.first else { return nil }
        let allowed = Int((rate * Double(sorted.count)).rounded(.down))
        if allowed == 0 { return first / 2 }
        if allowed >= sorted.count { return sorted[sorted.count - 1] }
        // Ties at the boundary would accept more than allowed: step back below them.
        var k = allowed
        while k > 0 && sorted[k - 1] == sorted[k] { k -= 1 }
        return k == 0 ? first / 2 : (sorted[k - 1] + sorted[k]) / 2
    }

    /// Share (0...1) of `distances` accepted at `threshold` (`distance <= threshold`); NaN for none.
    public static func acceptRate(_ distances: [Double], threshold: Double) -> Double {
        guard !distances.isEmpty else { return .nan }
        return Double(distances.filter { $0 <= threshold }.count) / Double(distances.count)
    }
}
