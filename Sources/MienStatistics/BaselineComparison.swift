/// Participants' change from their own baseline over time, every metric as one family: the one-sample t of
/// the change per bin, corrected by flipping the signs of whole participants' changes (as MNE-Python's
/// `permutation_cluster_1samp_test`), so "when did the audience respond" is answered with the family-wise error
/// held at α.
package struct BaselineComparison: Sendable {
    /// One matrix per metric: each participant's value minus their baseline, per bin (NaN where not measured).
    package var changes: [SeriesMatrix]

    package init(changes: [SeriesMatrix]) { self.changes = changes }

    /// Runs the test.
    ///
    /// The cluster-forming threshold is Student's t quantile at 1 − p/2 with n − 1 degrees of
    /// freedom (n: the participants).
    package func run(_ settings: PermutationSettings) -> PermutationOutcome {
        let rows = changes.first?.rows ?? 0
        let bins = changes.first?.columns ?? 0
        let threshold = StudentT.quantile(1 - settings.clusterFormingP / 2, degrees: Double(max(1, rows - 1)))
        let engine = PermutationEngine(
            members: changes.count, bins: bins, thresholds: Array(repeating: threshold, count: changes.count),
            settings: settings)
        // 2^n sign vectors; the exact test enumerates them all (each |statistic| twice, so p is unchanged).
        let exact: [[Int]]? =
            rows < 30 && (1 << rows) <= settings.permutations
            ? (0..<(1 << rows)).map { mask in (0..<rows).map { (mask >> $0) & 1 } } : nil
        let squares = changes.map { matrix in
            (0..<bins).map { bin in
                (0..<rows).reduce(0.0) { total, row in
                    let value = matrix.values[row * bins + bin]
                    return value.isNaN ? total : total + value * value
                }
            }
        }
        let counts = changes.map { matrix in
            (0..<bins).map { bin in (0..<rows).filter { !matrix.values[$0 * bins + bin].isNaN }.count }
        }
        let observed = [Int](repeating: 0, count: rows)
        return engine.run(
            observed: observed, exact: exact, sample: { generator in (0..<rows).map { _ in generator.below(2) } },
            statistic: { flips, output in
                for (metric, matrix) in changes.enumerated() {
                    matrix.values.withUnsafeBufferPointer { values in
                        for bin in 0..<bins {
                            var sum = 0.0
                            for row in 0..<rows {
                                let value = values[row * bins + bin]
                                if value.isNaN { continue }
                                sum += flips[row] == 1 ? -value : value
                            }
                            output[metric * bins + bin] = Self.oneSampleT(
                                count: Double(counts[metric][bin]), sum: sum, squares: squares[metric][bin])
                        }
                    }
                }
            })
    }

    /// The one-sample t of the mean against 0 from sums; NaN below 2 values or with no spread.
    static func oneSampleT(count: Double, sum: Double, squares: Double) -> Double {
        guard count >= 2 else { return .nan }
        let mean = sum / count
        let variance = GroupComparison.variance(count: count, mean: mean, squares: squares)
        guard variance > 0 else { return .nan }
        return mean / (variance / count).squareRoot()
    }
}
