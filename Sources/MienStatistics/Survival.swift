import Foundation

/// Retention: how long viewers stay with a stimulus they may skip.
///
/// Kaplan-Meier's estimate with its 95 % band, the
/// log-rank test between groups, and the hazard per bin (where viewers leave fastest).
///
/// Each viewer is a time (seconds) and whether they left then (`left`: they skipped) or were still watching
/// (censored: they watched to the end, or their viewing stopped for another reason).
package enum Survival {
    /// One viewer: when, and whether they left then.
    package struct Viewer: Sendable, Equatable {
        package var time: Double
        package var left: Bool

        package init(time: Double, left: Bool) {
            self.time = time
            self.left = left
        }
    }

    /// The estimate just after one time at which viewers left.
    package struct Step: Sendable, Equatable {
        package var time: Double
        /// Viewers still watching just before `time`.
        package var atRisk: Int
        /// Viewers who left at `time`.
        package var left: Int
        /// The share still watching after `time` (0...1).
        package var retained: Double
        /// Its 95 % band: Greenwood's variance on the log(-log) scale (the "exponential Greenwood" interval of
        /// lifelines and scipy's `log-log`), which stays within 0...1; nil where it is undefined (all or none left).
        package var low: Double?
        package var high: Double?
    }

    /// Kaplan-Meier's estimate: one step per distinct time at which someone left, in time order.
    package static func kaplanMeier(_ viewers: [Viewer]) -> [Step] {
        let times = Set(viewers.filter(\.left).map(\.time)).sorted()
        var retained = 1.0
        var greenwood = 0.0
        var steps: [Step] = []
        for time in times {
            let atRisk = viewers.filter { $0.time >= time }.count
            let left = viewers.filter { $0.left && $0.time == time }.count
            guard atRisk > 0 else { continue }
            retained *= 1 - Double(left) / Double(atRisk)
            if atRisk > left { greenwood += Double(left) / (Double(atRisk) * Double(atRisk - left)) }
            var step = Step(time: time, atRisk: atRisk, left: left, retained: retained, low: nil, high: nil)
            if retained > 0, retained < 1, atRisk > left {
                let logRetained = log(retained)
                let spread = z95 * (greenwood / (logRetained * logRetained)).squareRoot()
                step.low = pow(retained, exp(spread))
                step.high = pow(retained, exp(-spread))
            }
            steps.append(step)
        }
        return steps
    }

    /// The share still watching at `time` (after any step at it), from `steps`.
    package static func retained(at time: Double, _ steps: [Step]) -> Step? {
        steps.last { $0.time <= time }
    }

    /// The log-rank test of whether the groups' viewers leave at the same rate: the statistic (chi-square with
    /// groups − 1 degrees of freedom) and its p; nil with fewer than 2 groups or no one leaving.
    package static func logRank(_ groups: [[Viewer]]) -> (statistic: Double, degrees: Int, p: Double)? {
        let groups = groups.filter { !$0.isEmpty }
        guard groups.count >= 2 else { return nil }
        let all = groups.flatMap { $0 }
        let times = Set(all.filter(\.left).map(\.time)).sorted()
        guard !times.isEmpty else { return nil }
        let k = groups.count
        var observedMinusExpected = [Double](repeating: 0, count: k)
        var variance = [[Double]](repeating: [Double](repeating: 0, count: k), count: k)
        for time in times {
            let atRisk = groups.map { group in Double(group.filter { $0.time >= time }.count) }
            let left = groups.map { group in Double(group.filter { $0.left && $0.time == time }.count) }
            let n = atRisk.reduce(0, +)
            let d = left.reduce(0, +)
            guard n > 0 else { continue }
            for g in 0..<k { observedMinusExpected[g] += left[g] - d * atRisk[g] / n }
            guard n > 1 else { continue }
            let factor = d * (n - d) / (n - 1)
            for g in 0..<k {
                for h in 0..<k {
                    let share = atRisk[g] / n
                    variance[g][h] += factor * share * ((g == h ? 1 : 0) - atRisk[h] / n)
                }
            }
        }
        // The statistic over the first k − 1 groups (the last is determined by them).
        let size = k - 1
        let vector = Array(observedMinusExpected.prefix(size))
        let matrix = variance.prefix(size).map { Array($0.prefix(size)) }
        guard let solved = solve(matrix, vector) else { return nil }
        let statistic = zip(vector, solved).reduce(0) { $0 + $1.0 * $1.1 }
        return (statistic, size, chiSquareSurvival(statistic, degrees: size))
    }

    /// Per bin (`bin` seconds wide, `count` bins): those still watching at its start, and how many of them left
    /// within it; the hazard is the second over the first.
    package static func hazard(_ viewers: [Viewer], bin: Double, count: Int) -> [(atRisk: Int, left: Int)] {
        (0..<count).map { index in
            let start = Double(index) * bin
            let end = start + bin
            let atRisk = viewers.filter { $0.time >= start }.count
            let left = viewers.filter { $0.left && $0.time >= start && $0.time < end }.count
            return (atRisk, left)
        }
    }

    /// P(X > x) for a chi-square with `degrees` degrees of freedom: the regularized upper incomplete gamma
    /// Q(degrees / 2, x / 2).
    package static func chiSquareSurvival(_ x: Double, degrees: Int) -> Double {
        guard x > 0 else { return 1 }
        return upperGamma(Double(degrees) / 2, x / 2)
    }

    package static let z95 = 1.959_963_984_540_054

    /// Q(a, x), by its series below a + 1 and its continued fraction above (Numerical Recipes' split).
    private static func upperGamma(_ a: Double, _ x: Double) -> Double {
        let logPrefix = a * log(x) - x - lgamma(a)
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<1000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        // Lentz's method for the continued fraction of Q.
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1...1000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(1, exp(logPrefix) * h)
    }

    /// Solves `matrix` · x = `vector` by Gaussian elimination with partial pivoting; nil when singular.
    private static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
        let n = vector.count
        var a = matrix
        var b = vector
        for column in 0..<n {
            guard
                let pivot = (column..<n).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }),
                abs(a[pivot][column]) > 1e-12
            else { return nil }
            a.swapAt(column, pivot)
            b.swapAt(column, pivot)
            for row in (column + 1)..<n {
                let factor = a[row][column] / a[column][column]
                for k in column..<n { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<n { sum -= a[row][k] * x[k] }
            x[row] = sum / a[row][row]
        }
        return x
    }
}
