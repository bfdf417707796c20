import Foundation

/// Spearman's rank correlation with its two-sided p, as `scipy.stats.spearmanr` computes them (its default): the
/// Pearson correlation of the average ranks (ties share their mean rank), p from Student's t with n − 2 degrees of
/// freedom, t = ρ √((n − 2) / (1 − ρ²)); and a 95 % interval for ρ by Fisher's z with Bonett and Wright's (2000)
/// variance for Spearman's ρ, (1 + ρ²/2) / (n − 3) (from 4 pairs; scipy gives none for Spearman).
package enum RankCorrelation {
    package struct Result: Sendable, Equatable {
        package var rho: Double
        package var p: Double
        package var n: Int
        /// The 95 % interval (nil below 4 pairs).
        package var low: Double?
        package var high: Double?
    }

    /// The standard normal's 0.975 quantile.
    static let z975 = 1.959963984540054

    /// The 95 % interval of `rho` over `n` pairs: tanh(atanh ρ ± 1.96 √((1 + ρ²/2) / (n − 3))); ρ itself at ±1.
    package static func interval(rho: Double, n: Int) -> (low: Double, high: Double)? {
        guard n >= 4 else { return nil }
        guard abs(rho) < 1 else { return (rho, rho) }
        let spread = z975 * ((1 + rho * rho / 2) / Double(n - 3)).squareRoot()
        return (tanh(atanh(rho) - spread), tanh(atanh(rho) + spread))
    }

    /// ρ and p of `x` against `y` (pairs at the same index); nil below 3 pairs, for unequal lengths, or when either
    /// side is constant (ρ is undefined).
    package static func spearman(_ x: [Double], _ y: [Double]) -> Result? {
        guard x.count == y.count, x.count >= 3 else { return nil }
        let (rx, ry) = (ranks(x), ranks(y))
        let n = Double(x.count)
        let (mx, my) = (rx.reduce(0, +) / n, ry.reduce(0, +) / n)
        var (sxy, sxx, syy) = (0.0, 0.0, 0.0)
        for (a, b) in zip(rx, ry) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        guard sxx > 0, syy > 0 else { return nil }
        let rho = max(-1, min(1, sxy / (sxx * syy).squareRoot()))
        let degrees = n - 2
        let p: Double
        if abs(rho) >= 1 - 1e-15 {
            p = 0
        } else {
            p = StudentT.twoSidedP(rho * (degrees / ((1 - rho) * (1 + rho))).squareRoot(), degrees: degrees)
        }
        let bounds = interval(rho: rho, n: x.count)
        return Result(rho: rho, p: p, n: x.count, low: bounds?.low, high: bounds?.high)
    }

    /// Ranks 1...n, ties given their mean rank.
    static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let rank = Double(start + end) / 2 + 1
            for index in start...end { ranks[order[index]] = rank }
            start = end + 1
        }
        return ranks
    }
}
