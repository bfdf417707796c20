import Foundation

/// Student's t distribution: the quantiles a 95 % interval over a few participants needs.
///
/// The CDF is the regularized incomplete beta function (continued fraction, Lentz's method, as in Numerical
/// Recipes §6.4); the quantile is found by bisection, to 1e-10.
enum StudentT {
    /// The `p` quantile (0 < p < 1) with `degrees` degrees of freedom (> 0; Welch's are fractional).
    static func quantile(_ p: Double, degrees: Double) -> Double {
        if p == 0.5 { return 0 }
        if p < 0.5 { return -quantile(1 - p, degrees: degrees) }
        var low = 0.0
        var high = 1.0
        while cdf(high, degrees: degrees) < p { high *= 2 }
        for _ in 0..<200 where high - low > 1e-10 {
            let middle = (low + high) / 2
            if cdf(middle, degrees: degrees) < p { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// P(T ≤ t).
    static func cdf(_ t: Double, degrees: Double) -> Double {
        let v = degrees
        let tail = 0.5 * regularizedBeta(v / (v + t * t), a: v / 2, b: 0.5)
        return t >= 0 ? 1 - tail : tail
    }

    /// The two-sided 95 % critical value.
    static func critical95(degrees: Double) -> Double { quantile(0.975, degrees: degrees) }

    /// I_x(a, b).
    static func regularizedBeta(_ x: Double, a: Double, b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let logNorm: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
        let logPowers: Double = a * log(x) + b * log(1 - x)
        let logFront = logNorm + logPowers
        if x < (a + 1) / (a + b + 2) { return exp(logFront) * continuedFraction(x, a: a, b: b) / a }
        return 1 - exp(logFront) * continuedFraction(1 - x, a: b, b: a) / b
    }

    private static func continuedFraction(_ x: Double, a: Double, b: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var h = d
        for m in 1...300 {
            let m = Double(m)
            let even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            d = 1 + even * d
            if abs(d) < tiny { d = tiny }
            c = 1 + even / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            h *= d * c
            let odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1 + odd * d
            if abs(d) < tiny { d = tiny }
            c = 1 + odd / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            h *= step
            if abs(step - 1) < 1e-15 { break }
        }
        return h
    }
}
