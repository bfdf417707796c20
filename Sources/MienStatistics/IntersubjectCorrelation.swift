/// Inter-subject correlation (ISC) of a panel, every metric as one family, with its null and its interval.
///
/// Each participant's series is correlated (Pearson) with the mean of the others' (leave-one-out), and the
/// metric's ISC is the mean of those correlations. The null comes from circularly shifting each participant's
/// series by its own random offset (BrainIAK's `timeshift_isc`; Nastase et al. 2019): the series keep their
/// own smoothness but lose any alignment in time. A participant's shift is the same for every metric, and the
/// corrected p compares each metric's ISC, in units of its own null's spread, with the largest of any metric under
/// each shift (the standardized maximum), so the chance
/// of any ISC reported significant when nobody shares a response is held at α. The interval is a percentile
/// bootstrap of the mean over participants (resampling their leave-one-out correlations, as BrainIAK's
/// `bootstrap_isc`).
package struct IntersubjectCorrelation: Sendable {
    /// One matrix per metric, the same participants in the same rows.
    package var series: [SeriesMatrix]
    /// The fewest bins measured in 2 or more participants for an ISC.
    package var minimumBins: Int
    /// The fewest participants with a correlation for an ISC (3: with 2, each one's "others" is the other).
    package var minimumParticipants: Int

    package init(series: [SeriesMatrix], minimumBins: Int, minimumParticipants: Int = 3) {
        self.series = series
        self.minimumBins = minimumBins
        self.minimumParticipants = minimumParticipants
    }

    /// One metric's ISC.
    package struct Figure: Sendable, Equatable {
        /// The mean leave-one-out correlation; nil with a `reason`.
        package var isc: Double?
        /// Each row's leave-one-out correlation (nil: fewer than 3 bins shared, or a constant series).
        package var participants: [Double?]
        /// Corrected over the family's metrics (the largest standardized ISC of any metric under each shift).
        package var p: Double?
        /// This metric's own p (its ISC under each shift), for a single metric chosen in advance.
        package var uncorrectedP: Double?
        /// The 95 % bootstrap interval of `isc`.
        package var low: Double?
        package var high: Double?
        /// Bins measured in 2 or more participants.
        package var bins: Int
        /// Why there is no ISC.
        package var reason: String?
    }

    /// Computes every metric's ISC, its null from `samples` shifts (the observed series counted among them) and
    /// its interval from `samples` bootstrap resamples, both drawn from `seed`.
    package func run(samples: Int, seed: UInt64) -> [Figure] {
        var figures = series.map { matrix -> Figure in
            let bins = (0..<matrix.columns).filter { column in
                (0..<matrix.rows).filter { matrix[$0, column] != nil }.count >= 2
            }.count
            let correlations = Self.leaveOneOut(matrix)
            let found = correlations.compactMap { $0 }
            var figure = Figure(
                isc: nil, participants: correlations, p: nil, uncorrectedP: nil, low: nil, high: nil, bins: bins,
                reason: nil)
            if bins < minimumBins {
                figure.reason = "\(bins) bins measured in 2 or more participants (an ISC needs \(minimumBins))"
            } else if found.count < minimumParticipants {
                figure.reason =
                    "\(found.count) participants with a correlation (an ISC needs \(minimumParticipants); a participant needs 3 bins shared with the others and a series that varies)"
            } else {
                figure.isc = found.reduce(0, +) / Double(found.count)
            }
            return figure
        }
        let tested = figures.indices.filter { figures[$0].isc != nil }
        guard !tested.isEmpty else { return figures }
        let rows = series[0].rows
        let columns = series[0].columns
        var generator = SeededGenerator(seed: seed)
        let observed = figures.map { $0.isc ?? .infinity }
        // Each row written twice over, so a row shifted by k is the `columns` values from k on.
        let doubled = series.map { matrix in
            (0..<matrix.rows).flatMap { row -> [Double] in
                let values = matrix.values[(row * matrix.columns)..<((row + 1) * matrix.columns)]
                return Array(values) + Array(values)
            }
        }
        var columnSums = [Double](repeating: 0, count: columns)
        var columnCounts = [Double](repeating: 0, count: columns)
        // The null, sample-major: the observed ISCs first (they count among the samples, as MNE-Python counts
        // the observed labelling), then one row of every tested metric's mean ISC per set of shifts.
        var null: [[Double]] = [tested.map { observed[$0] }]
        for _ in 1..<max(1, samples) {
            let shifts = (0..<rows).map { _ in generator.below(columns) }
            null.append(
                tested.map { metric in
                    Self.shiftedMean(
                        doubled[metric], rows: rows, columns: columns, shifts: shifts, sums: &columnSums,
                        counts: &columnCounts) ?? -.infinity
                })
        }
        let adjusted = Self.standardizedMax(null)
        for (position, metric) in tested.enumerated() {
            figures[metric].uncorrectedP = adjusted.own[position]
            figures[metric].p = adjusted.family[position]
        }
        for metric in tested {
            let found = figures[metric].participants.compactMap { $0 }
            var means: [Double] = []
            means.reserveCapacity(max(1, samples))
            for _ in 0..<max(1, samples) {
                var total = 0.0
                for _ in 0..<found.count { total += found[generator.below(found.count)] }
                means.append(total / Double(found.count))
            }
            figures[metric].low = Descriptive.quantile(means, 0.025)
            figures[metric].high = Descriptive.quantile(means, 0.975)
        }
        return figures
    }

    /// Each metric's own p and its p corrected over the metrics by the standardized maximum.
    ///
    /// Every metric's ISC is put in units of its own null's spread (z = (ISC − null mean) / null standard deviation), and a metric's
    /// z is compared with the largest z of any metric under each set of shifts. Each metric is thus judged
    /// against its own null (a smooth metric's shifted ISCs spread wider than a jumpy one's), so one metric with
    /// a wide null does not mask the others as the largest raw ISC would; and unlike the smallest p of each
    /// shift (Westfall and Young's min-p), it does not run out of resolution with many metrics and 1000 shifts.
    /// - Parameter null: sample-major, the observed values first; larger is more extreme.
    static func standardizedMax(_ null: [[Double]]) -> (own: [Double], family: [Double]) {
        let samples = null.count
        let metrics = null.first?.count ?? 0
        var z = null
        var own = [Double](repeating: 1, count: metrics)
        for metric in 0..<metrics {
            let column = null.map { $0[metric] }.filter(\.isFinite)
            let mean = column.reduce(0, +) / Double(max(1, column.count))
            let spread = (column.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, column.count - 1)))
                .squareRoot()
            for sample in 0..<samples {
                let value = null[sample][metric]
                z[sample][metric] = value.isFinite ? (spread > 0 ? (value - mean) / spread : 0) : -.infinity
            }
            let observed = null[0][metric] * (1 - 1e-12) - 1e-15
            own[metric] = Double(null.filter { $0[metric] >= observed }.count) / Double(samples)
        }
        let largest = z.map { $0.max() ?? -.infinity }
        let family = (0..<metrics).map { metric in
            let observed = z[0][metric] - 1e-12 * max(1, abs(z[0][metric]))
            return Double(largest.filter { $0 >= observed }.count) / Double(samples)
        }
        return (own, family)
    }

    /// Each row's correlation with the mean of the other rows, over the bins where it and at least one other
    /// row are measured; `shifts` rotate each row first (row r's bin b is read from bin (b + shift) mod columns).
    static func leaveOneOut(_ matrix: SeriesMatrix) -> [Double?] {
        let rows = matrix.rows
        let columns = matrix.columns
        return matrix.values.withUnsafeBufferPointer { values -> [Double?] in
            var columnSums = [Double](repeating: 0, count: columns)
            var counts = [Double](repeating: 0, count: columns)
            for index in 0..<(rows * columns) where !values[index].isNaN {
                columnSums[index % columns] += values[index]
                counts[index % columns] += 1
            }
            return (0..<rows).map { row -> Double? in
                var sums = PearsonSums()
                for column in 0..<columns {
                    let x = values[row * columns + column]
                    if x.isNaN || counts[column] < 2 { continue }
                    sums.add(x, (columnSums[column] - x) / (counts[column] - 1))
                }
                return sums.correlation
            }
        }
    }

    /// The mean leave-one-out correlation of the rows of `doubled` (each row twice over) shifted by `shifts`.
    ///
    /// Nil when no row has one. The null's inner loop: no allocation, `sums` and `counts` reused.
    static func shiftedMean(
        _ doubled: [Double], rows: Int, columns: Int, shifts: [Int], sums: inout [Double], counts: inout [Double]
    ) -> Double? {
        doubled.withUnsafeBufferPointer { values in
            sums.withUnsafeMutableBufferPointer { sums in
                counts.withUnsafeMutableBufferPointer { counts in
                    for column in 0..<columns {
                        sums[column] = 0
                        counts[column] = 0
                    }
                    for row in 0..<rows {
                        let start = row * 2 * columns + shifts[row]
                        for column in 0..<columns {
                            let value = values[start + column]
                            if value.isNaN { continue }
                            sums[column] += value
                            counts[column] += 1
                        }
                    }
                    var total = 0.0
                    var found = 0
                    for row in 0..<rows {
                        let start = row * 2 * columns + shifts[row]
                        // PearsonSums written out: this loop runs rows × metrics × samples times, and a
                        // debug build (the tests') does not inline the calls.
                        var n = 0.0
                        var sx = 0.0
                        var sy = 0.0
                        var sxx = 0.0
                        var syy = 0.0
                        var sxy = 0.0
                        for column in 0..<columns {
                            let x = values[start + column]
                            if x.isNaN || counts[column] < 2 { continue }
                            let y = (sums[column] - x) / (counts[column] - 1)
                            n += 1
                            sx += x
                            sy += y
                            sxx += x * x
                            syy += y * y
                            sxy += x * y
                        }
                        if let r = PearsonSums.correlation(n: n, sx: sx, sy: sy, sxx: sxx, syy: syy, sxy: sxy) {
                            total += r
                            found += 1
                        }
                    }
                    return found == 0 ? nil : total / Double(found)
                }
            }
        }
    }
}
