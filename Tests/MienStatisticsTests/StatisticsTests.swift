import Foundation
import Testing

@testable import MienStatistics

/// The statistics behind `mien study`, against published values and cases whose answer is known.
///
/// The comparison with scipy and MNE-Python on fixed data is `make statistics-check`.
@Suite("Statistics")
struct StatisticsTests {
    @Test func studentT_matchesTheTable() {
        // Two-sided 95 % critical values (any statistics textbook's table).
        let table: [(Double, Double)] = [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042)]
        for (degrees, value) in table {
            #expect(abs(StudentT.critical95(degrees: degrees) - value) < 0.001, "\(degrees)")
        }
        #expect(abs(StudentT.critical95(degrees: 1e6) - 1.960) < 0.001)
        #expect(abs(StudentT.cdf(0, degrees: 4) - 0.5) < 1e-12)
        #expect(abs(StudentT.twoSidedP(2.776445105, degrees: 4) - 0.05) < 1e-8)
    }

    @Test func meanInterval_andWelch() throws {
        let (mean, low, high) = Descriptive.meanInterval([1, 2, 3, 4])
        // sd = 1.291, se = 0.6455, t(3) = 3.182
        #expect(mean == 2.5 && abs((high ?? 0) - 4.5541) < 0.001 && abs((low ?? 0) - 0.4459) < 0.001)
        #expect(Descriptive.meanInterval([7]).low == nil)
        let difference = try #require(Descriptive.welch([10, 11, 12], [1, 2, 3]))
        // se = √(1/3 + 1/3), 4 degrees of freedom (Welch), t = 2.776
        #expect(difference.difference == 9 && abs(difference.low - 6.7334) < 0.001)
        #expect(abs(difference.high - 11.2666) < 0.001 && abs((difference.t ?? 0) - 9 / (2.0 / 3).squareRoot()) < 1e-9)
        #expect(try #require(Descriptive.welch([1, 2], [1, 2])).low < 0)
        #expect(Descriptive.welch([1], [1, 2]) == nil)
        #expect(Descriptive.welch([5, 5], [1, 1])?.t == nil)
    }

    @Test func correlation_peaks_andQuantiles() {
        #expect(abs((Descriptive.pearson([(1, 2), (2, 4), (3, 7)]) ?? 0) - 0.9934) < 0.001)
        #expect(Descriptive.pearson([(1, 5), (2, 5), (3, 5)]) == nil)
        #expect(Descriptive.pearson([(1, 100), (2, 100), (3, 100.000_000_000_001)]) == nil)
        let peaks = Peaks.find([0, 50, 10, 30, 30, 5, nil, 40, 45])
        #expect(peaks.map(\.index) == [1, 3])
        // 50 stands above the deeper of the lowest points either side before a higher one: 0 left, 5 right.
        #expect(peaks.map(\.prominence) == [45, 20])
        #expect(peaks.map(\.leftBase) == [0, 2] && peaks.map(\.rightBase) == [5, 5])
        // A rise to the end is no peak; nor is a plateau that goes on up.
        #expect(Peaks.find([1, 2, 3, 3, 4]).isEmpty)
        // numpy.quantile([1, 2, 3, 4], 0.25) = 1.75
        #expect(Descriptive.quantile([4, 1, 3, 2], 0.25) == 1.75 && Descriptive.quantile([], 0.5) == nil)
        // scipy.stats.false_discovery_control([0.01, 0.04, 0.03, 0.2]) = [0.04, 0.0533, 0.0533, 0.2]
        let adjusted = BenjaminiHochberg.adjust([0.01, 0.04, 0.03, 0.2])
        #expect(zip(adjusted, [0.04, 0.16 / 3, 0.16 / 3, 0.2]).allSatisfy { abs($0 - $1) < 1e-12 }, "\(adjusted)")
    }

    @Test func seededGenerator_repeatsItsSequence_andStaysInBounds() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        var c = SeededGenerator(seed: 43)
        let first = (0..<100).map { _ in a.below(7) }
        #expect(first == (0..<100).map { _ in b.below(7) } && first != (0..<100).map { _ in c.below(7) })
        #expect(first.allSatisfy { (0..<7).contains($0) } && Set(first).count == 7)
        #expect(a.shuffled(Array(0..<10)).sorted() == Array(0..<10))
    }

    /// A panel of `rows` participants over `bins` bins: noise, plus `effect` in `bins 4...7` for the rows given.
    private func panel(rows: Int, bins: Int = 12, effect: Double, in affected: Set<Int>, seed: UInt64) -> SeriesMatrix {
        var generator = SeededGenerator(seed: seed)
        func noise() -> Double { Double(generator.below(2001)) / 100 - 10 }
        return SeriesMatrix(
            rows: rows, columns: bins,
            values: (0..<rows).flatMap { row in
                (0..<bins).map { bin in 50 + noise() + (affected.contains(row) && (4...7).contains(bin) ? effect : 0) }
            })
    }

    @Test func groupComparison_findsTheStretchWhereGroupsDiffer_andNothingInLabelsAtRandom() {
        let data = panel(rows: 14, effect: 30, in: Set(0..<7), seed: 7)
        let labels = Array(repeating: 0, count: 7) + Array(repeating: 1, count: 7)
        let test = GroupComparison(series: [data], labels: labels, groupCount: 2, pairs: [(0, 1)])
        let outcome = test.run(PermutationSettings(permutations: 1000, seed: 3))
        // One cluster over the effect's bins 4...7; a cluster's edges are not tested bin by bin (a neighbour whose t
        // passes the threshold by chance joins it), so one bin either side may come along.
        let found = outcome.findings.filter { $0.p < 0.05 }
        let cluster = found.first.map { $0.start...$0.end } ?? 0...0
        #expect(found.count == 1 && found.first?.sign == 1, "\(outcome)")
        #expect(cluster.contains(4) && cluster.contains(7) && cluster.count <= 6, "\(cluster)")
        #expect(!outcome.exact && outcome.permutations == 1000)
        // The same seed gives the same p-values, bit for bit.
        #expect(test.run(PermutationSettings(permutations: 1000, seed: 3)) == outcome)
        // Labels that do not follow the effect: nothing.
        let mixed = GroupComparison(
            series: [data], labels: (0..<14).map { $0 % 2 }, groupCount: 2, pairs: [(0, 1)])
        #expect(mixed.run(PermutationSettings(permutations: 1000, seed: 3)).findings.allSatisfy { $0.p >= 0.05 })
    }

    @Test func groupComparison_isExactWhenTheRelabellingsAreFew() {
        let data = panel(rows: 8, effect: 40, in: Set(0..<4), seed: 11)
        let labels = [0, 0, 0, 0, 1, 1, 1, 1]
        #expect(GroupComparison.arrangements(labels).count == 70 && GroupComparison.arrangementCount([4, 4]) == 70)
        #expect(GroupComparison.arrangements([0, 1, 1, 2]).count == 12)
        let outcome = GroupComparison(series: [data], labels: labels, groupCount: 2, pairs: [(0, 1)])
            .run(PermutationSettings(permutations: 1000))
        #expect(outcome.exact && outcome.permutations == 70)
        // The observed split and its mirror are the two most extreme of 70: p = 2/70.
        let best = outcome.findings.min { $0.p < $1.p }
        #expect(abs((best?.p ?? 1) - 2.0 / 70) < 1e-12, "\(outcome.findings)")
    }

    @Test func baselineComparison_findsTheResponse_andCorrectsOverMetrics() {
        let responding = panel(rows: 10, effect: 25, in: Set(0..<10), seed: 5)
        let flat = panel(rows: 10, effect: 0, in: [], seed: 6)
        func changes(_ matrix: SeriesMatrix) -> SeriesMatrix {
            // Each row's change from its first two bins.
            SeriesMatrix(
                rows: matrix.rows, columns: matrix.columns - 2,
                values: (0..<matrix.rows).flatMap { row in
                    let base = ((matrix[row, 0] ?? 0) + (matrix[row, 1] ?? 0)) / 2
                    return (2..<matrix.columns).map { (matrix[row, $0] ?? 0) - base }
                })
        }
        let outcome = BaselineComparison(changes: [changes(flat), changes(responding)])
            .run(PermutationSettings(permutations: 1000, seed: 9))
        #expect(!outcome.exact)
        let found = outcome.findings.filter { $0.p < 0.05 }
        #expect(
            found.count == 1 && found.first?.member == 1 && found.first?.start == 2 && found.first?.end == 5, "\(found)"
        )
        // Six participants: 64 sign vectors, an exact test.
        let small = BaselineComparison(changes: [changes(responding.selecting(rows: Array(0..<6)))])
            .run(PermutationSettings(permutations: 1000))
        #expect(small.exact && small.permutations == 64)
    }

    @Test func intersubjectCorrelation_againstShiftedSeries() {
        var generator = SeededGenerator(seed: 2)
        let shared = (0..<30).map { _ in Double(generator.below(100)) }
        let aligned = SeriesMatrix(
            rows: 6, columns: 30,
            values: (0..<6).flatMap { _ in shared.map { $0 + Double(generator.below(20)) } })
        let unrelated = SeriesMatrix(
            rows: 6, columns: 30, values: (0..<180).map { _ in Double(generator.below(100)) })
        let short = SeriesMatrix(rows: 6, columns: 5, values: (0..<30).map { _ in Double(generator.below(100)) })
        let figures = IntersubjectCorrelation(series: [aligned, unrelated], minimumBins: 10).run(samples: 1000, seed: 4)
        #expect((figures[0].isc ?? 0) > 0.8 && (figures[0].p ?? 1) < 0.01, "\(figures[0])")
        #expect((figures[0].low ?? 0) > 0.7 && (figures[0].high ?? 0) <= 1 && figures[0].bins == 30)
        #expect((figures[1].p ?? 0) > 0.05 && (figures[1].uncorrectedP ?? 0) > 0.05, "\(figures[1])")
        let none = IntersubjectCorrelation(series: [short], minimumBins: 10).run(samples: 1000, seed: 4)
        #expect(none[0].isc == nil && none[0].reason == "5 bins measured in 2 or more participants (an ISC needs 10)")
    }
}
