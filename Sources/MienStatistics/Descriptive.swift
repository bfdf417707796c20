/// The descriptive figures over participants: a mean with its interval, Welch's difference, Pearson's r.
///
/// Plain arrays in, plain values out.
package enum Descriptive {
    /// Mean and 95 % interval (Student's t, n − 1 degrees of freedom) of `values`; no interval below 2 values.
    package static func meanInterval(_ values: [Double]) -> (mean: Double?, low: Double?, high: Double?) {
        guard !values.isEmpty else { return (nil, nil, nil) }
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        guard values.count >= 2 else { return (mean, nil, nil) }
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        let half = StudentT.critical95(degrees: n - 1) * (variance / n).squareRoot()
        return (mean, mean - half, mean + half)
    }

    /// Welch's comparison of two samples: the difference of the means (`a` − `b`), its t statistic, its
    /// Welch–Satterthwaite degrees of freedom and 95 % interval; nil below 2 values in either sample.
    ///
    /// When both samples are constant the spread is 0: `t` is then nil and the interval is the difference
    /// itself.
    package static func welch(_ a: [Double], _ b: [Double]) -> Welch? {
        guard a.count >= 2, b.count >= 2 else { return nil }
        func moments(_ values: [Double]) -> (mean: Double, spread: Double) {
            let n = Double(values.count)
            let mean = values.reduce(0, +) / n
            return (mean, values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1) / n)
        }
        let (meanA, spreadA) = moments(a)
        let (meanB, spreadB) = moments(b)
        let value = meanA - meanB
        let spread = spreadA + spreadB
        guard spread > 0 else { return Welch(difference: value, t: nil, degrees: nil, low: value, high: value) }
        let degrees =
            spread * spread
            / (spreadA * spreadA / Double(a.count - 1) + spreadB * spreadB / Double(b.count - 1))
        let half = StudentT.critical95(degrees: degrees) * spread.squareRoot()
        return Welch(
            difference: value, t: value / spread.squareRoot(), degrees: degrees, low: value - half, high: value + half)
    }

    /// Pearson's correlation of the pairs; nil below 3 pairs or when either side is constant (to rounding).
    package static func pearson(_ pairs: [(Double, Double)]) -> Double? {
        var sums = PearsonSums()
        for (x, y) in pairs { sums.add(x, y) }
        return sums.correlation
    }

    /// The `q` quantile (0...1) of `values` with linear interpolation between order statistics (numpy's
    /// default, "linear"); nil when empty or `q` is not within 0...1.
    package static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty, (0...1).contains(q) else { return nil }
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        guard let below = Int(exactly: position.rounded(.down)) else { return nil }
        let above = min(below + 1, sorted.count - 1)
        let fraction = position - Double(below)
        return sorted[below] + (sorted[above] - sorted[below]) * fraction
    }

    /// The 95 % Wilson score interval of a share of `successes` out of `trials` (0...1 each end): unlike the normal
    /// approximation it stays within 0...1 and is not empty at 0 or all; nil for no trial.
    package static func wilson(successes: Int, trials: Int) -> (low: Double, high: Double)? {
        guard trials > 0, (0...trials).contains(successes) else { return nil }
        let n = Double(trials)
        let share = Double(successes) / n
        let z = 1.959_963_984_540_054
        let z2 = z * z
        let centre = (share + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * (share * (1 - share) / n + z2 / (4 * n * n)).squareRoot()
        return (max(0, centre - half), min(1, centre + half))
    }
}

/// Welch's comparison of two means (`Descriptive.welch`).
package struct Welch: Sendable, Equatable {
    /// Mean of the first sample minus mean of the second.
    package var difference: Double
    /// The difference over its standard error; nil when both samples are constant.
    package var t: Double?
    /// Welch–Satterthwaite degrees of freedom; nil with `t`.
    package var degrees: Double?
    /// The 95 % interval of the difference.
    package var low: Double
    package var high: Double
}

/// Running sums for Pearson's correlation: the one definition every correlation in Mien uses.
package struct PearsonSums: Sendable {
    private var n = 0.0
    private var sx = 0.0
    private var sy = 0.0
    private var sxx = 0.0
    private var syy = 0.0
    private var sxy = 0.0

    package init() {}

    package mutating func add(_ x: Double, _ y: Double) {
        n += 1
        sx += x
        sy += y
        sxx += x * x
        syy += y * y
        sxy += x * y
    }

    /// The correlation; nil below 3 pairs or when either side is constant to rounding (its centred sum of
    /// squares below 1e-12 of its raw one).
    package var correlation: Double? { Self.correlation(n: n, sx: sx, sy: sy, sxx: sxx, syy: syy, sxy: sxy) }

    /// The correlation from the sums themselves (for loops that keep them in locals).
    package static func correlation(
        n: Double, sx: Double, sy: Double, sxx: Double, syy: Double, sxy: Double
    ) -> Double? {
        guard n >= 3 else { return nil }
        let cxx = sxx - sx * sx / n
        let cyy = syy - sy * sy / n
        guard cxx > 1e-12 * max(1, sxx), cyy > 1e-12 * max(1, syy) else { return nil }
        return (sxy - sx * sy / n) / (cxx * cyy).squareRoot()
    }
}
