import Foundation
import Testing

@testable import MienStatistics

/// A stimulus placed among a norm (`NormPlacement`).
///
/// The percentile's ties, a panel on the norm's median found there, and arrows under no difference in no more than the
/// error rate. scipy on the same numbers: `make statistics-check`.
@Suite("Norm placement")
struct NormPlacementTests {
    /// `count` draws around `centre` with spread `spread`.
    static func normal(_ count: Int, centre: Double, spread: Double, _ generator: inout SeededGenerator) -> [Double] {
        (0..<count).map { _ in
            let u = (Double(generator.next() >> 11) + 1) / 9_007_199_254_740_992
            let v = Double(generator.next() >> 11) / 9_007_199_254_740_992
            return centre + spread * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
    }

    @Test func thePercentile_countsTiesAsHalf_asScipysKindMean() {
        let norm = [10.0, 20, 20, 30, 40]
        #expect(NormPlacement.percentileOfScore(20, in: norm) == 40)
        #expect(NormPlacement.percentileOfScore(5, in: norm) == 0)
        #expect(NormPlacement.percentileOfScore(45, in: norm) == 100)
        #expect(NormPlacement.percentileOfScore(30, in: norm) == 70)
        #expect(NormPlacement.percentileOfScore(1, in: []) == nil)
    }

    /// 200 panels of 12 viewers whose figures centre on the norm's median, 8 figures each corrected together
    /// (Benjamini-Hochberg): a panel with any arrow is a false finding, at most 5 % of panels in expectation.
    @Test func panelsOnTheNormsMedian_getArrowsNoMoreOftenThanAlphaAllows() {
        var generator = SeededGenerator(seed: 80)
        let norm = Self.normal(30, centre: 40, spread: 10, &generator)
        let median = Descriptive.quantile(norm, 0.5) ?? 0
        let settings = NormPlacement.Settings(resamples: 500, seed: 4)
        var withArrow = 0
        var percentiles: [Double] = []
        for panel in 0..<200 {
            var p: [Double] = []
            for figure in 0..<8 {
                let values = Self.normal(12, centre: median, spread: 12, &generator)
                let placed = NormPlacement.place(
                    values, among: norm,
                    settings: .init(resamples: settings.resamples, seed: UInt64(panel * 8 + figure)))
                guard let placed else { continue }
                p.append(placed.p)
                percentiles.append(placed.percentile)
            }
            if BenjaminiHochberg.adjust(p).contains(where: { $0 < 0.05 }) { withArrow += 1 }
        }
        // Measured (seed 80): 9 of 200 panels (4.5 %), mean percentile 50.45; 17 or more has binomial probability 2.4 %
        // at a true 5 %.
        #expect(withArrow <= 16, "\(withArrow) of 200 panels on the median got an arrow")
        let mean = percentiles.reduce(0, +) / Double(percentiles.count)
        #expect(abs(mean - 50) < 3, "the mean percentile \(mean)")
        // A panel 10 points above the median (a standardised effect of 0.8 with 12 viewers) gets its arrow.
        let shifted = Self.normal(12, centre: median + 10, spread: 12, &generator)
        let placed = NormPlacement.place(shifted, among: norm, settings: settings)
        #expect((placed?.p ?? 1) < 0.05 && (placed?.percentile ?? 0) > 75, "\(String(describing: placed))")
    }
}
