import Mien
import MienStatistics

/// The attention curve: per bin of a stimulus and per group, the share of the included viewers who watched
/// (`ParticipantSeries.onScreenBins` at half or more of the bin's judged frames), with Wilson's 95 % interval.
///
/// A share of viewers, not a mean of scores: what Realeyes' and Affectiva's attention traces show. Its points are
/// `StudyCurvePoint`s of the metric `viewers.onScreen` (percent, 0...100), written to `attention.csv`.
enum StudyAttention {
    /// The curve's metric name.
    static let metric = "viewers.onScreen"

    /// The points of `group`'s members over `binCount` bins of `stimulus`; none when no member's `onScreen` was
    /// measured.
    static func points(stimulus: String, group: String, members: [ParticipantSeries], binCount: Int, bin: Double)
        -> [StudyCurvePoint]
    {
        guard members.contains(where: { $0.onScreenBins != nil }) else { return [] }
        return (0..<binCount).map { index in
            let shares = members.compactMap { member -> Double? in
                guard let bins = member.onScreenBins, bins.indices.contains(index) else { return nil }
                return bins[index]
            }
            let watching = shares.filter { $0 >= 0.5 }.count
            let interval = Descriptive.wilson(successes: watching, trials: shares.count)
            return StudyCurvePoint(
                stimulus: stimulus, group: group, metric: metric, time: Double(index) * bin, n: shares.count,
                mean: shares.isEmpty ? nil : 100 * Double(watching) / Double(shares.count),
                low: interval.map { 100 * $0.low }, high: interval.map { 100 * $0.high }, episodeShare: nil)
        }
    }
}
