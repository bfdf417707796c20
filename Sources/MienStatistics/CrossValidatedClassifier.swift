import Foundation

/// A cross-validated prediction of a yes/no outcome from a few features per participant (issue 80 item 2: liking or
/// intent from the faces): L2-regularised logistic regression, each feature's missing values filled with its
/// training-fold mean and every feature standardised on the training fold, as scikit-learn's
/// `make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(C=c))` fits it; stratified folds of
/// participants, repeated with new shuffles; the area under the ROC curve of the out-of-fold predictions.
///
/// One statistic throughout (issue 95 item 3): the figure, the test and the interval are all about the mean AUC
/// over `repeats` repetitions.
/// - The test: that mean against the same repeated cross-validation with the outcome permuted across participants
///   (`permutations` times, every model refitted, the folds stratified anew on each permuted outcome), two-sided
///   about 0.5: p = 2 × (1 + the permuted means at or beyond the estimate on its side) / (1 + permutations), at
///   most 1. The faces predict when the estimate is above 0.5 and p < `alpha`.
/// - The interval: that test inverted under a shift (Ernst 2004, "Permutation methods"): the values θ of the AUC
///   that a two-sided test at `alpha` would not reject if the estimate's spread about θ were the permuted means'
///   spread about 0.5, i.e. [estimate − (c⁺ − 0.5), estimate + (0.5 − c⁻)] with c± the permuted means beyond which
///   the test rejects; clipped to 0-1. It therefore always holds its estimate, and excludes 0.5 from below exactly
///   when the faces predict; on answers shuffled across participants it holds 0.5 in 1 − `alpha` of panels.
package enum CrossValidatedClassifier {
    package struct Settings: Sendable, Equatable {
        /// The inverse of the L2 penalty's strength (scikit-learn's `C`).
        package var c = 1.0
        package var folds = 5
        package var repeats = 10
        package var permutations = 199
        /// The test's two-sided level; the interval's coverage is 1 − alpha.
        package var alpha = 0.05
        package var seed: UInt64 = 1

        package init() {}
    }

    package struct Result: Sendable, Equatable {
        /// Participants and those with the outcome.
        package var n: Int
        package var positives: Int
        /// The folds used (fewer than asked when the smaller class has fewer participants).
        package var folds: Int
        /// The mean out-of-fold AUC over the repetitions.
        package var auc: Double
        /// The interval of coverage 1 − alpha (see the type's documentation).
        package var low: Double
        package var high: Double
        /// The two-sided permutation p of `auc`.
        package var p: Double
        /// Whether the faces predict: `auc` above 0.5 with p < alpha (the same as `low` above 0.5).
        package var passes: Bool
    }

    /// The prediction of `outcome` (one per row) from `rows` (participants × features; nil: not measured); nil when
    /// either class has fewer than 2 participants (no fold can hold both).
    package static func evaluate(rows: [[Double?]], outcome: [Bool], settings: Settings = Settings()) -> Result? {
        let positives = outcome.filter { $0 }.count
        let smaller = min(positives, outcome.count - positives)
        guard rows.count == outcome.count, smaller >= 2, settings.repeats >= 1 else { return nil }
        let k = min(settings.folds, smaller)
        var generator = SeededGenerator(seed: settings.seed)
        let estimate = meanAUC(rows: rows, outcome: outcome, k: k, settings: settings, using: &generator)
        var permuted: [Double] = []
        var labels = outcome
        for _ in 0..<settings.permutations {
            labels = generator.shuffled(labels)
            permuted.append(meanAUC(rows: rows, outcome: labels, k: k, settings: settings, using: &generator))
        }
        let total = Double(1 + settings.permutations)
        let above = permuted.filter { $0 >= estimate }.count
        let below = permuted.filter { $0 <= estimate }.count
        let p = min(1, 2 * Double(1 + min(above, below)) / total)
        // The test rejects on a side when at most `allowed` permuted means lie at or beyond the estimate there:
        // 2 (1 + m) / total < alpha. c± are the (allowed + 1)-th most extreme permuted means on each side.
        var allowed = -1
        while 2 * Double(1 + allowed + 1) / total < settings.alpha { allowed += 1 }
        let descending = permuted.sorted(by: >)
        let ascending = permuted.sorted()
        let upper = allowed >= 0 && allowed < descending.count ? descending[allowed] : 1.0
        let lower = allowed >= 0 && allowed < ascending.count ? ascending[allowed] : 0.0
        let low = min(estimate, max(0, estimate - (upper - 0.5)))
        let high = max(estimate, min(1, estimate + (0.5 - lower)))
        return Result(
            n: rows.count, positives: positives, folds: k, auc: estimate, low: low, high: high, p: p,
            passes: estimate > 0.5 && p < settings.alpha)
    }

    /// The mean out-of-fold AUC of `settings.repeats` repeated, stratified `k`-fold cross-validations, each drawing
    /// its folds from `generator`.
    package static func meanAUC(
        rows: [[Double?]], outcome: [Bool], k: Int, settings: Settings, using generator: inout SeededGenerator
    ) -> Double {
        var sum = 0.0
        for _ in 0..<settings.repeats {
            let folds = stratifiedFolds(outcome, k: k, using: &generator)
            sum += auc(outOfFold(rows: rows, outcome: outcome, folds: folds, k: k, c: settings.c), outcome)
        }
        return sum / Double(settings.repeats)
    }

    /// The mean AUC of the same repeated cross-validation as `evaluate`'s estimate (the same folds for the same
    /// seed), without a test: a baseline model's figure beside the prediction's.
    package static func baseline(rows: [[Double?]], outcome: [Bool], settings: Settings = Settings()) -> Double? {
        let positives = outcome.filter { $0 }.count
        let smaller = min(positives, outcome.count - positives)
        guard rows.count == outcome.count, smaller >= 2, settings.repeats >= 1 else { return nil }
        var generator = SeededGenerator(seed: settings.seed)
        return meanAUC(
            rows: rows, outcome: outcome, k: min(settings.folds, smaller), settings: settings, using: &generator)
    }

    /// Each participant's fold, 0..<k: within each class, in a shuffled order, dealt in turn.
    package static func stratifiedFolds(_ outcome: [Bool], k: Int, using generator: inout SeededGenerator) -> [Int] {
        var folds = [Int](repeating: 0, count: outcome.count)
        var next = 0
        for label in [true, false] {
            for index in generator.shuffled(outcome.indices.filter { outcome[$0] == label }) {
                folds[index] = next % k
                next += 1
            }
        }
        return folds
    }

    /// The out-of-fold probability of each row: each fold predicted by the model fitted on the others.
    package static func outOfFold(rows: [[Double?]], outcome: [Bool], folds: [Int], k: Int, c: Double) -> [Double] {
        var scores = [Double](repeating: 0.5, count: rows.count)
        for fold in 0..<k {
            let train = rows.indices.filter { folds[$0] != fold }
            let test = rows.indices.filter { folds[$0] == fold }
            let model = fit(rows: train.map { rows[$0] }, outcome: train.map { outcome[$0] }, c: c)
            for index in test { scores[index] = model.probability(rows[index]) }
        }
        return scores
    }

    /// A fitted model: the training fold's means and scales, the coefficients and the intercept.
    package struct Model: Sendable {
        var means: [Double]
        var scales: [Double]
        var weights: [Double]
        var intercept: Double

        package func probability(_ row: [Double?]) -> Double {
            var z = intercept
            for j in weights.indices {
                z += weights[j] * (((row[j] ?? means[j]) - means[j]) / scales[j])
            }
            return 1 / (1 + exp(-z))
        }
    }

    /// Fits the model by Newton's method on the penalised log-loss, C Σ log-loss + ½ ‖w‖² (the intercept not
    /// penalised), to a gradient below 1e-10.
    package static func fit(rows: [[Double?]], outcome: [Bool], c: Double) -> Model {
        let p = rows.first?.count ?? 0
        let n = rows.count
        var means = [Double](repeating: 0, count: p)
        var scales = [Double](repeating: 1, count: p)
        for j in 0..<p {
            let present = rows.compactMap { $0[j] }
            let mean = present.isEmpty ? 0 : present.reduce(0, +) / Double(present.count)
            means[j] = mean
            // Missing values are the mean; the scale is the population SD of the filled column (1 when constant).
            let variance = rows.reduce(0) { $0 + (($1[j] ?? mean) - mean) * (($1[j] ?? mean) - mean) } / Double(n)
            scales[j] = variance > 0 ? variance.squareRoot() : 1
        }
        let x = rows.map { row in (0..<p).map { ((row[$0] ?? means[$0]) - means[$0]) / scales[$0] } }
        let y = outcome.map { $0 ? 1.0 : 0.0 }
        // Parameters: weights 0..<p, then the intercept at p.
        var beta = [Double](repeating: 0, count: p + 1)
        for _ in 0..<100 {
            var gradient = [Double](repeating: 0, count: p + 1)
            var hessian = [[Double]](repeating: [Double](repeating: 0, count: p + 1), count: p + 1)
            for i in 0..<n {
                var z = beta[p]
                for j in 0..<p { z += beta[j] * x[i][j] }
                let probability = 1 / (1 + exp(-z))
                let w = probability * (1 - probability)
                let residual = probability - y[i]
                for j in 0...p {
                    let xj = j == p ? 1 : x[i][j]
                    gradient[j] += c * residual * xj
                    for l in 0...j { hessian[j][l] += c * w * xj * (l == p ? 1 : x[i][l]) }
                }
            }
            for j in 0..<p {
                gradient[j] += beta[j]
                hessian[j][j] += 1
            }
            for j in 0...p { for l in 0..<j { hessian[l][j] = hessian[j][l] } }
            if gradient.map(abs).max() ?? 0 < 1e-10 { break }
            guard let step = solve(hessian, gradient) else { break }
            for j in 0...p { beta[j] -= step[j] }
        }
        return Model(means: means, scales: scales, weights: Array(beta[0..<p]), intercept: beta[p])
    }

    /// `a x = b` by Cholesky (a symmetric positive definite); nil when it is not.
    static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        let n = b.count
        var l = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in 0...i {
                var sum = a[i][j]
                for k in 0..<j { sum -= l[i][k] * l[j][k] }
                if i == j {
                    guard sum > 0 else { return nil }
                    l[i][i] = sum.squareRoot()
                } else {
                    l[i][j] = sum / l[j][j]
                }
            }
        }
        var z = [Double](repeating: 0, count: n)
        for i in 0..<n {
            var sum = b[i]
            for k in 0..<i { sum -= l[i][k] * z[k] }
            z[i] = sum / l[i][i]
        }
        var x = [Double](repeating: 0, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var sum = z[i]
            for k in (i + 1)..<n { sum -= l[k][i] * x[k] }
            x[i] = sum / l[i][i]
        }
        return x
    }

    /// The area under the ROC curve of `scores` for `labels` (ties count half), as scikit-learn's `roc_auc_score`.
    package static func auc(_ scores: [Double], _ labels: [Bool]) -> Double {
        let positive = scores.indices.filter { labels[$0] }.map { scores[$0] }
        let negative = scores.indices.filter { !labels[$0] }.map { scores[$0] }
        guard !positive.isEmpty, !negative.isEmpty else { return .nan }
        var wins = 0.0
        for a in positive {
            for b in negative { wins += a > b ? 1 : a == b ? 0.5 : 0 }
        }
        return wins / Double(positive.count * negative.count)
    }
}
