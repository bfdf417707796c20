/// The machinery both permutation tests share: run the statistic under every relabelling, form clusters, and
/// turn the permutation distribution into corrected p-values.
///
/// A relabelling is an array of `Int` (group indices, or 0/1 sign flips); `statistic` fills one value per member
/// and bin for it (NaN where undefined). The family's maximum is what corrects for many members and bins.
struct PermutationEngine {
    let members: Int
    let bins: Int
    let thresholds: [Double]
    let settings: PermutationSettings

    /// Runs `statistic` on `observed` and on the permutations, and reads the findings.
    /// - Parameters:
    ///   - exact: every distinct relabelling (the observed one among them) when there are at most
    ///     `settings.permutations`; nil to sample.
    ///   - sample: draws a random relabelling.
    func run(
        observed: [Int], exact: [[Int]]?, sample: (inout SeededGenerator) -> [Int],
        statistic: ([Int], inout [Double]) -> Void
    ) -> PermutationOutcome {
        var buffer = [Double](repeating: .nan, count: members * bins)
        statistic(observed, &buffer)
        let observedStatistics = buffer
        let clusters = Self.clusters(observedStatistics, members: members, bins: bins, thresholds: thresholds)
        // Counts of permutations at least as extreme: per observed cluster (cluster), or per bin (fdr).
        var clusterCounts = [Int](repeating: 0, count: clusters.count)
        var binCounts = [Int](repeating: 0, count: members * bins)
        let observedMagnitudes = clusters.map { abs($0.mass) * (1 - 1e-12) }
        let observedBins = observedStatistics.map { abs($0) * (1 - 1e-12) }
        func tally(_ values: [Double]) {
            switch settings.correction {
            case .cluster:
                let largest = Self.largestMass(values, members: members, bins: bins, thresholds: thresholds)
                for index in clusters.indices where largest >= observedMagnitudes[index] { clusterCounts[index] += 1 }
            case .fdr:
                for index in values.indices
                where !observedBins[index].isNaN && abs(values[index]) >= observedBins[index] {
                    binCounts[index] += 1
                }
            }
        }
        let total: Int
        if let exact {
            for relabelling in exact {
                statistic(relabelling, &buffer)
                tally(buffer)
            }
            total = exact.count
        } else {
            // The observed labelling counts once, as MNE-Python's H0 holds it.
            tally(observedStatistics)
            var generator = SeededGenerator(seed: settings.seed)
            for _ in 1..<max(1, settings.permutations) {
                statistic(sample(&generator), &buffer)
                tally(buffer)
            }
            total = max(1, settings.permutations)
        }
        let statistics = (0..<members).map { Array(observedStatistics[($0 * bins)..<(($0 + 1) * bins)]) }
        switch settings.correction {
        case .cluster:
            let findings = zip(clusters, clusterCounts).map { cluster, count in
                var finding = cluster
                finding.p = Double(count) / Double(total)
                return finding
            }
            return PermutationOutcome(
                findings: findings, statistics: statistics, permutations: total, exact: exact != nil,
                thresholds: thresholds)
        case .fdr:
            let defined = observedStatistics.indices.filter { !observedStatistics[$0].isNaN }
            let adjusted = BenjaminiHochberg.adjust(defined.map { Double(binCounts[$0]) / Double(total) })
            var q = [Double](repeating: .nan, count: members * bins)
            for (index, value) in zip(defined, adjusted) { q[index] = value }
            let findings = Self.runs(observedStatistics, q: q, members: members, bins: bins, alpha: settings.alpha)
            return PermutationOutcome(
                findings: findings, statistics: statistics, permutations: total, exact: exact != nil,
                thresholds: thresholds)
        }
    }

    /// Every cluster of `values` (member-major): consecutive bins beyond the member's threshold in one direction.
    static func clusters(_ values: [Double], members: Int, bins: Int, thresholds: [Double]) -> [PermutationOutcome
        .Finding]
    {
        var found: [PermutationOutcome.Finding] = []
        for member in 0..<members {
            let threshold = thresholds[member]
            var start: Int?
            var sign = 0
            var mass = 0.0
            func close(_ end: Int) {
                if let first = start {
                    found.append(.init(member: member, start: first, end: end, sign: sign, mass: mass, p: 1))
                }
                start = nil
                mass = 0
                sign = 0
            }
            for bin in 0..<bins {
                let value = values[member * bins + bin]
                let direction = value > threshold ? 1 : value < -threshold ? -1 : 0
                if direction != sign { close(bin - 1) }
                if direction != 0 {
                    if start == nil {
                        start = bin
                        sign = direction
                    }
                    mass += value
                }
            }
            close(bins - 1)
        }
        return found
    }

    /// The largest |mass| of any cluster in `values` (0 when none): the statistic the family is corrected by.
    static func largestMass(_ values: [Double], members: Int, bins: Int, thresholds: [Double]) -> Double {
        values.withUnsafeBufferPointer { values in
            var largest = 0.0
            for member in 0..<members {
                let threshold = thresholds[member]
                var mass = 0.0
                var sign = 0
                for bin in 0..<bins {
                    let value = values[member * bins + bin]
                    let direction = value > threshold ? 1 : value < -threshold ? -1 : 0
                    if direction != sign {
                        largest = max(largest, abs(mass))
                        mass = 0
                        sign = direction
                    }
                    if direction != 0 { mass += value }
                }
                largest = max(largest, abs(mass))
            }
            return largest
        }
    }

    /// Runs of consecutive bins whose adjusted p is below alpha, in one direction (the FDR findings).
    static func runs(_ values: [Double], q: [Double], members: Int, bins: Int, alpha: Double) -> [PermutationOutcome
        .Finding]
    {
        var found: [PermutationOutcome.Finding] = []
        for member in 0..<members {
            var current: PermutationOutcome.Finding?
            for bin in 0..<bins {
                let index = member * bins + bin
                let significant = !q[index].isNaN && q[index] < alpha
                let sign = values[index] > 0 ? 1 : -1
                if significant, var run = current, run.sign == sign, run.end == bin - 1 {
                    run.end = bin
                    run.mass += values[index]
                    run.p = max(run.p, q[index])
                    current = run
                    continue
                }
                if let run = current { found.append(run) }
                current =
                    significant
                    ? .init(member: member, start: bin, end: bin, sign: sign, mass: values[index], p: q[index]) : nil
            }
            if let run = current { found.append(run) }
        }
        return found
    }
}

/// Benjamini–Hochberg adjusted p-values (step-up; as `scipy.stats.false_discovery_control` with method "bh").
package enum BenjaminiHochberg {
    package static func adjust(_ p: [Double]) -> [Double] {
        let order = p.indices.sorted { p[$0] < p[$1] }
        var adjusted = [Double](repeating: 1, count: p.count)
        var running = 1.0
        let m = Double(p.count)
        for (rank, index) in order.enumerated().reversed() {
            running = min(running, p[index] * m / Double(rank + 1))
            adjusted[index] = min(1, running)
        }
        return adjusted
    }
}
