import Foundation

/// The tests a comparison of adverts or groups makes (issue 98 item 4), each as its reference computes it:
/// `make statistics-check` compares them with scipy and statsmodels.
package enum PairwiseTests {
    /// Student's paired t test of `a` − `b`, the same participants in the same order.
    ///
    /// The mean difference, its 95 % interval, t and the two-sided p (as `scipy.stats.ttest_rel`); nil below 2
    /// pairs. Pairs that do not differ
    /// at all give t nil and p 1 (or 0 when every difference is the same non-zero value).
    package static func pairedT(_ a: [Double], _ b: [Double]) -> (
        difference: Double, low: Double?, high: Double?, t: Double?, p: Double
    )? {
        guard a.count == b.count, a.count >= 2 else { return nil }
        let differences = zip(a, b).map { $0 - $1 }
        let n = Double(differences.count)
        let mean = differences.reduce(0, +) / n
        let sd = (differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)).squareRoot()
        guard sd > 0 else { return (mean, mean, mean, nil, mean == 0 ? 1 : 0) }
        let t = mean / (sd / n.squareRoot())
        let half = StudentT.critical95(degrees: n - 1) * sd / n.squareRoot()
        return (mean, mean - half, mean + half, t, StudentT.twoSidedP(t, degrees: n - 1))
    }

    /// McNemar's exact test of paired yes/no answers.
    ///
    /// `onlyA` pairs said yes to a only, `onlyB` to b only; the two-sided binomial p of the smaller count among the discordant pairs at one half (as statsmodels'
    /// `mcnemar(exact=True)`). 1 when no pair differs.
    package static func mcnemarExact(onlyA: Int, onlyB: Int) -> Double {
        let n = onlyA + onlyB
        guard n > 0 else { return 1 }
        let smaller = min(onlyA, onlyB)
        // P(X <= smaller) for X ~ Binomial(n, 1/2), summed in logs (n can be hundreds).
        var total = 0.0
        for k in 0...smaller {
            total += exp(lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1)) - Double(n) * log(2))
        }
        return min(1, 2 * total)
    }

    /// The two-proportion z test with the pooled proportion (as statsmodels' `proportions_ztest`): z of
    /// `yesA / nA` − `yesB / nB` and its two-sided p; nil when either group is empty or the pooled share is 0 or 1
    /// (no spread to test against).
    package static func twoProportions(yesA: Int, nA: Int, yesB: Int, nB: Int) -> (z: Double, p: Double)? {
        guard nA > 0, nB > 0 else { return nil }
        let pooled = Double(yesA + yesB) / Double(nA + nB)
        let spread = (pooled * (1 - pooled) * (1 / Double(nA) + 1 / Double(nB))).squareRoot()
        guard spread > 0 else { return nil }
        let z = (Double(yesA) / Double(nA) - Double(yesB) / Double(nB)) / spread
        return (z, Survival.chiSquareSurvival(z * z, degrees: 1))
    }

    /// Bonferroni's adjustment of `p` over its family: each times the family's size, at most 1 (as statsmodels'
    /// `multipletests(method="bonferroni")`).
    package static func bonferroni(_ p: [Double]) -> [Double] {
        p.map { min(1, $0 * Double(p.count)) }
    }

    /// Column-proportion letters, as survey tables print them.
    ///
    /// For each column, the letters of the columns it is significantly above, given each pair's adjusted p and which
    /// side was higher; `names[i]` names column i.
    /// - Parameter pairs: (i, j, adjusted p, i's value minus j's).
    package static func letters(columns: Int, pairs: [(Int, Int, Double, Double)], alpha: Double, names: [String])
        -> [String]
    {
        var above = Array(repeating: [String](), count: columns)
        for (i, j, q, difference) in pairs where q < alpha && difference != 0 {
            if difference > 0 { above[i].append(names[j]) } else { above[j].append(names[i]) }
        }
        return above.map { $0.sorted().joined() }
    }
}
