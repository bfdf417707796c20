/// Where one stimulus's figure stands among a norm's stimuli (issue 80 item 4), from the participants who watched it.
///
/// - The percentile: `percentileOfScore` of the stimulus's figure (the mean over its participants) among the norm's
///   values, as `scipy.stats.percentileofscore(norm, value, kind="mean")`: the share below plus half the share equal,
///   so a stimulus equal to the norm's middle value sits at 50.
/// - Its interval: the 2.5 and 97.5 % quantiles of the percentiles of `resamples` bootstrap means (the participants
///   resampled with replacement): how far the placement could move with another panel of the same size.
/// - The test behind an arrow: whether the participants' mean differs from the norm's median, by a sign-flip
///   permutation test of each participant's difference from it (every sign pattern when there are no more than
///   `resamples`, else `resamples` drawn), two-sided as `scipy.stats.permutation_test(..., permutation_type=
///   "samples")`: p = 2 × the smaller tail, at most 1. The norm's median is taken as given: its own spread is what
///   the percentile shows. The caller corrects the p of a stimulus's figures together (Benjamini-Hochberg).
package enum NormPlacement {
    package struct Settings: Sendable, Equatable {
        package var resamples = 2000
        package var seed: UInt64 = 1

        package init(resamples: Int = 2000, seed: UInt64 = 1) {
            self.resamples = resamples
            self.seed = seed
        }
    }

    package struct Result: Sendable, Equatable {
        /// The stimulus's figure: the mean over its participants.
        package var value: Double
        /// Participants with the figure.
        package var n: Int
        /// The norm's stimuli with the figure, and their median.
        package var normSize: Int
        package var normMedian: Double
        /// Percentile (0...100) and its 95 % bootstrap interval.
        package var percentile: Double
        package var low: Double
        package var high: Double
        /// The sign-flip test's two-sided p (uncorrected), and whether every sign pattern was counted.
        package var p: Double
        package var exact: Bool
    }

    /// `scipy.stats.percentileofscore(norm, value, kind="mean")`: 0...100; nil for an empty norm.
    package static func percentileOfScore(_ value: Double, in norm: [Double]) -> Double? {
        guard !norm.isEmpty else { return nil }
        let below = norm.filter { $0 < value }.count
        let atOrBelow = norm.filter { $0 <= value }.count
        return Double(below + atOrBelow) / 2 / Double(norm.count) * 100
    }

    /// The two-sided p that the mean of `values` differs from `reference` (a sign-flip test; nil without a value).
    ///
    /// Each value's difference from it flipped in sign (see the type's notes); exact when 2^n ≤ `resamples`.
    package static func signFlipP(_ values: [Double], reference: Double, resamples: Int, seed: UInt64) -> (
        p: Double, exact: Bool
    )? {
        guard !values.isEmpty else { return nil }
        let differences = values.map { $0 - reference }
        let n = differences.count
        let observed = differences.reduce(0, +) / Double(n)
        // scipy compares with a relative tolerance (100 machine epsilons of the observed mean), so that sums of the
        // same values in another order count as equal.
        let tolerance = abs(observed) * Double.ulpOfOne * 100
        var below = 0
        var above = 0
        var count = 0
        func tally(_ mean: Double) {
            if mean <= observed + tolerance { below += 1 }
            if mean >= observed - tolerance { above += 1 }
            count += 1
        }
        let exact = n < 62 && (1 << n) <= resamples
        if exact {
            for pattern in 0..<(1 << n) {
                var sum = 0.0
                for (index, difference) in differences.enumerated() {
                    sum += pattern & (1 << index) == 0 ? difference : -difference
                }
                tally(sum / Double(n))
            }
            let p = 2 * Double(min(below, above)) / Double(count)
            return (min(p, 1), true)
        }
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<resamples {
            var sum = 0.0
            for difference in differences { sum += generator.next() & 1 == 0 ? difference : -difference }
            tally(sum / Double(n))
        }
        // Sampled: the observed arrangement counts once in each tail (scipy's adjustment of 1).
        let p = 2 * Double(min(below, above) + 1) / Double(count + 1)
        return (min(p, 1), false)
    }

    /// The 95 % percentile-bootstrap interval of the mean of `values` (nil without a value).
    package static func meanInterval(_ values: [Double], resamples: Int, seed: UInt64) -> (low: Double, high: Double)? {
        guard !values.isEmpty, resamples > 0 else { return nil }
        var generator = SeededGenerator(seed: seed)
        var means: [Double] = []
        means.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var sum = 0.0
            for _ in values.indices { sum += values[generator.below(values.count)] }
            means.append(sum / Double(values.count))
        }
        guard let low = Descriptive.quantile(means, 0.025), let high = Descriptive.quantile(means, 0.975) else {
            return nil
        }
        return (low, high)
    }

    /// Places the mean of `values` (each participant's figure) among `norm` (each norm stimulus's figure).
    ///
    /// Nil when either is empty. The percentile is monotone in the mean, so its interval is the percentiles of the mean's.
    package static func place(_ values: [Double], among norm: [Double], settings: Settings) -> Result? {
        guard !values.isEmpty, let median = Descriptive.quantile(norm, 0.5) else { return nil }
        let value = values.reduce(0, +) / Double(values.count)
        guard let percentile = percentileOfScore(value, in: norm),
            let interval = meanInterval(values, resamples: settings.resamples, seed: settings.seed),
            let low = percentileOfScore(interval.low, in: norm), let high = percentileOfScore(interval.high, in: norm),
            let test = signFlipP(values, reference: median, resamples: settings.resamples, seed: settings.seed &+ 1)
        else { return nil }
        return Result(
            value: value, n: values.count, normSize: norm.count, normMedian: median, percentile: percentile,
            low: low, high: high, p: test.p, exact: test.exact)
    }
}
