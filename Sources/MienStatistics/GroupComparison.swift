import Foundation

/// Groups of participants compared over time, every metric and every pair of groups as one family: Welch's t
/// per bin, corrected by permuting the group labels (`PermutationSettings.Correction`).
///
/// The family is what the correction covers: the largest cluster mass (or every bin's p, with FDR) is taken
/// over all its members, so the chance of any false difference in a stimulus is held at α however many
/// metrics and groups it has. A participant's whole series moves with their label, so what is measured
/// together (neighbouring bins, metrics of one face, missing stretches) stays together.
package struct GroupComparison: Sendable {
    /// One matrix per metric, the same participants in the same rows.
    package var series: [SeriesMatrix]
    /// Each row's group, 0..<groupCount.
    package var labels: [Int]
    package var groupCount: Int
    /// The pairs compared (first, second): members are metric-major, `metric * pairs.count + pair`.
    package var pairs: [(Int, Int)]

    package init(series: [SeriesMatrix], labels: [Int], groupCount: Int, pairs: [(Int, Int)]) {
        self.series = series
        self.labels = labels
        self.groupCount = groupCount
        self.pairs = pairs
    }

    /// Runs the test.
    ///
    /// Welch's t is first − second; the cluster-forming threshold of a pair is Student's t
    /// quantile at 1 − p/2 with n₁ + n₂ − 2 degrees of freedom (its full group sizes).
    package func run(_ settings: PermutationSettings) -> PermutationOutcome {
        let bins = series.first?.columns ?? 0
        let sizes = (0..<groupCount).map { group in labels.filter { $0 == group }.count }
        let pairThresholds = pairs.map { pair in
            StudentT.quantile(
                1 - settings.clusterFormingP / 2, degrees: Double(max(1, sizes[pair.0] + sizes[pair.1] - 2)))
        }
        let thresholds = series.indices.flatMap { _ in pairThresholds }
        let engine = PermutationEngine(
            members: series.count * pairs.count, bins: bins, thresholds: thresholds, settings: settings)
        let exact = Self.arrangementCount(sizes) <= Double(settings.permutations) ? Self.arrangements(labels) : nil
        // Sums per group and bin, reused across metrics and permutations.
        var count = [Double](repeating: 0, count: groupCount * bins)
        var sum = count
        var squares = count
        let squared = series.map { $0.values.map { $0 * $0 } }
        return engine.run(
            observed: labels, exact: exact, sample: { $0.shuffled(labels) },
            statistic: { labels, output in
                for (metric, matrix) in series.enumerated() {
                    count.withUnsafeMutableBufferPointer { count in
                        sum.withUnsafeMutableBufferPointer { sum in
                            squares.withUnsafeMutableBufferPointer { squares in
                                matrix.values.withUnsafeBufferPointer { values in
                                    squared[metric].withUnsafeBufferPointer { squared in
                                        for index in 0..<count.count {
                                            count[index] = 0
                                            sum[index] = 0
                                            squares[index] = 0
                                        }
                                        for row in 0..<matrix.rows {
                                            let offset = labels[row] * bins
                                            for bin in 0..<bins {
                                                let value = values[row * bins + bin]
                                                if value.isNaN { continue }
                                                count[offset + bin] += 1
                                                sum[offset + bin] += value
                                                squares[offset + bin] += squared[row * bins + bin]
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    for (pairIndex, pair) in pairs.enumerated() {
                        let member = metric * pairs.count + pairIndex
                        for bin in 0..<bins {
                            let a = pair.0 * bins + bin
                            let b = pair.1 * bins + bin
                            output[member * bins + bin] = Self.welchT(
                                count: (count[a], count[b]), sum: (sum[a], sum[b]), squares: (squares[a], squares[b]))
                        }
                    }
                }
            })
    }

    /// Welch's t from sums; NaN below 2 values a side or with no spread.
    static func welchT(
        count: (Double, Double), sum: (Double, Double), squares: (Double, Double)
    ) -> Double {
        guard count.0 >= 2, count.1 >= 2 else { return .nan }
        let meanA = sum.0 / count.0
        let meanB = sum.1 / count.1
        let varianceA = variance(count: count.0, mean: meanA, squares: squares.0)
        let varianceB = variance(count: count.1, mean: meanB, squares: squares.1)
        let spread = varianceA / count.0 + varianceB / count.1
        guard spread > 0 else { return .nan }
        return (meanA - meanB) / spread.squareRoot()
    }

    /// The sample variance from a sum of squares, with the rounding of a constant sample taken as 0 (a score
    /// of 100 in every frame leaves about 1e-11 behind, which would otherwise read as a huge t).
    static func variance(count: Double, mean: Double, squares: Double) -> Double {
        let raw = (squares - count * mean * mean) / (count - 1)
        return raw <= 1e-10 * (1 + mean * mean) ? 0 : raw
    }

    /// How many distinct ways the labels can be arranged (the multinomial coefficient), as a Double.
    static func arrangementCount(_ sizes: [Int]) -> Double {
        let total = sizes.reduce(0, +)
        let log = lgamma(Double(total) + 1) - sizes.reduce(0) { $0 + lgamma(Double($1) + 1) }
        return exp(log).rounded()
    }

    /// Every distinct arrangement of `labels` (lexicographic next-permutation over the multiset).
    static func arrangements(_ labels: [Int]) -> [[Int]] {
        var current = labels.sorted()
        var all: [[Int]] = [current]
        while true {
            guard var i = current.indices.dropLast().last(where: { current[$0] < current[$0 + 1] }) else { break }
            let j = current.indices.last { current[$0] > current[i] } ?? i
            current.swapAt(i, j)
            i += 1
            current[i...].reverse()
            all.append(current)
        }
        return all
    }
}
