/// Receiver-operating-characteristic statistics for a score that should be higher on positives.
public enum ROC {
    /// The area under the ROC curve: the probability that a random positive scores above a random
    /// negative (ties count half).
    ///
    /// 0.5 is chance, 1 perfect; NaN when either side is empty.
    public static func auc(positives: [Double], negatives: [Double]) -> Double {
        guard !positives.isEmpty, !negatives.isEmpty else { return .nan }
        var wins = 0.0
        for p in positives {
            for n in negatives { wins += p > n ? 1 : (p == n ? 0.5 : 0) }
        }
        return wins / Double(positives.count * negatives.count)
    }
}
