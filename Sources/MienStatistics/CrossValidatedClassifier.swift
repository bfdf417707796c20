import Foundation

/// A cross-validated prediction of a yes/no outcome from a few features per participant (issue 80 item 2: liking or
/// intent from the faces): L2-regularised logistic regression, each feature's missing values filled with its
/// training-fold mean and every feature standardised on the training fold, as scikit-learn's
/// `make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(C=c))` fits it; stratified folds of
/// participants, repeated with new shuffles; the area under the ROC curve of the out-of-fold predictions.
///
/// - The figure: the mean AUC over `repeats` repetitions, with a 95 % percentile bootstrap interval over
///   participants (each participant's out-of-fold probability averaged over the repetitions).
/// - The test: the first repetition's AUC against the same cross-validation with the outcome permuted across
///   participants (`permutations` times, the folds stratified anew on each permuted outcome): p = (1 + the permuted
///   AUCs at or above it) / (1 + permutations), as scikit-learn's `permutation_test_score`.
package enum CrossValidatedClassifier {
    package struct Settings: Sendable, Equatable {
        /// The inverse of the L2 penalty's strength (scikit-learn's `C`).
        package var c = 1.0
        package var folds = 5
        package var repeats = 10
        package var permutations = 199
        package var bootstrap = 2000
        package var seed: UInt64 = 1

        package init() {}
    }

    package struct Result: Sendable, Equatable {
        /// Participants and those with the outcome.
        package var n: Int
        package var positives: Int
        /// The folds used (fewer than asked when the smaller class has fewer participants).
        package var folds: Int
        package var auc: Double
        package var low: Double
        package var high: Double
        package var p: Double
    }

    /// The prediction of `outcome` (one per row) from `rows` (participants × features; nil: not measured); nil when
    /// either class has fewer than 2 participants (no fold can hold both).
    package static func evaluate(rows: [[Double?]], outcome: [Bool], settings: Settings = Settings()) -> Result? {
        let positives = outcome.filter { $0 }.count
        let smaller = min(positives, outcome.count - positives)
        guard rows.count == outcome.count, smaller >= 2 else { return nil }
        let k = min(settings.folds, smaller)
        var generator = SeededGenerator(seed: settings.seed)
        var sums = [Double](repeating: 0, count: rows.count)
        var aucs: [Double] = []
        for _ in 0..<settings.repeats {
            let folds = stratifiedFolds(outcome, k: k, using: &generator)
            let scores = outOfFold(rows: rows, outcome: outcome, folds: folds, k: k, c: settings.c)
            for index in scores.indices { sums[index] += scores[index] }
            aucs.append(auc(scores, outcome))
        }
        let first = aucs.first ?? 0.5
        var atOrAbove = 0
        var permuted = outcome
        for _ in 0..<settings.permutations {
            permuted = generator.shuffled(permuted)
            let folds = stratifiedFolds(permuted, k: k, using: &generator)
            if auc(outOfFold(rows: rows, outcome: permuted, folds: folds, k: k, c: settings.c), permuted) >= first
                - 1e-12
            {
                atOrAbove += 1
            }
        }
        let averaged = sums.map { $0 / Double(settings.repeats) }
        var resampled: [Double] = []
        for _ in 0..<settings.bootstrap {
            let picks = (0..<rows.count).map { _ in generator.below(rows.count) }
            let labels = picks.map { outcome[$0] }
            guard labels.contains(true), labels.contains(false) else { continue }
            resampled.append(auc(picks.map { averaged[$0] }, labels))
        }
        resampled.sort()
        let quantile = { (q: Double) -> Double in
            resampled.isEmpty
                ? .nan
                : resampled[min(resampled.count - 1, Int(exactly: (q * Double(resampled.count)).rounded(.down)) ?? 0)]
        }
        return Result(
            n: rows.count, positives: positives, folds: k, auc: aucs.reduce(0, +) / Double(aucs.count),
            low: quantile(0.025), high: quantile(0.975),
            p: Double(1 + atOrAbove) / Double(1 + settings.permutations))
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
