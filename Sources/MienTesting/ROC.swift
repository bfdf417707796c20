/// Receiver-operating-characteristic statistics for a score that should be higher on positives.
public enum ROC {
    /// The area under the ROC curve: the probability that a random positive scores above a random
    /// negative (ties count half).
    ///
    /// 0.5 is chance, 1 perfect; NaN when either side is empty. Computed from ranks (Mann-Whitney U, tied
    /// values sharing their mean rank), so O(n log n): the bootstrap of `PairedAUCBootstrap` calls it
    /// thousands of times on fer2013's 3,000 pictures.
    public static func auc(positives: [Double], negatives: [Double]) -> Double {
        guard !positives.isEmpty, !negatives.isEmpty else { return .nan }
        let all = (positives.map { ($0, true) } + negatives.map { ($0, false) }).sorted { $0.0 < $1.0 }
        var positiveRankSum = 0.0
        var start = 0
        while start < all.count {
            var end = start
            while end + 1 < all.count && all[end + 1].0 == all[start].0 { end += 1 }
            // Ranks start + 1 ... end + 1 share their mean.
            let rank = Double(start + end + 2) / 2
            for i in start...end where all[i].1 { positiveRankSum += rank }
            start = end + 1
        }
        let p = Double(positives.count)
        return (positiveRankSum - p * (p + 1) / 2) / (p * Double(negatives.count))
    }
}
