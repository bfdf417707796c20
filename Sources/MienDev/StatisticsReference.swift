import ArgumentParser
import Foundation
import Mien
import MienStatistics
import MienStudies

/// `MienDev statistics`: the study statistics on cases given as JSON, answered as JSON, for
/// `scripts/statistics-check/check.py` to compare with scipy and MNE-Python (`make statistics-check`).
struct StatisticsReference: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "statistics",
        abstract:
            "Compute t quantiles, Welch and Wilson intervals and cluster permutation tests for cases read as JSON.")

    @Argument(
        help:
            "The cases (JSON: quantiles, welch, twoSample, oneSample, fdr, isc, wilson, survival, spearman, logistic, norms, markChange, pairedT, mcnemar, proportions, letters, raking)."
    )
    var input: String

    struct Cases: Decodable {
        /// Each [p, degrees].
        var quantiles: [[Double]]
        /// Each pair of samples [a, b].
        var welch: [[[Double]]]
        var twoSample: [TwoSample]
        var oneSample: [OneSample]
        var fdr: [[Double]]
        /// Participants × bins, one panel per case.
        var isc: [[[Double]]]
        /// Each [successes, trials].
        var wilson: [[Int]]
        /// Each case: groups of viewers, each viewer [time, left (1) or censored (0)].
        var survival: [[[[Double]]]]
        /// Each pair [x, y] for Spearman's rank correlation.
        var spearman: [[[Double]]]
        /// Each case: participants' features (null: not measured), outcomes, folds and C.
        var logistic: [Logistic]
        /// Each case: a stimulus's participants' values placed among a norm's stimuli (`NormPlacement`).
        var norms: [Norm]
        /// Each case: viewers' smile changes across a mark, tested as the summary's mark lines do.
        var markChange: [[Double]]
        /// Issue 98 item 4: each pair [a, b] of one participants' values for Student's paired t.
        var pairedT: [[[Double]]]
        /// Each [only a, only b]: discordant pairs for McNemar's exact test.
        var mcnemar: [[Int]]
        /// Each [yes a, n a, yes b, n b] for the two-proportion z test.
        var proportions: [[Int]]
        /// Each case: groups' [yes, n], compared pairwise (z, Bonferroni within the case) into column letters.
        var letters: [[[Int]]]
        /// Issue 98 item 5: each case's people's categories per dimension and the dimensions' target shares.
        var raking: [RakingCase]
    }

    struct RakingCase: Decodable {
        var categories: [[Int]]
        var targets: [[Double]]
    }

    struct Norm: Decodable {
        var values: [Double]
        var norm: [Double]
        var resamples: Int
    }

    struct NormAnswer: Encodable {
        var value: Double
        var median: Double
        var percentile: Double
        var low: Double
        var high: Double
        var p: Double
        var exact: Bool
        /// The bootstrap interval of the mean, for scipy.stats.bootstrap's.
        var meanLow: Double
        var meanHigh: Double
    }

    struct Logistic: Decodable {
        var rows: [[Double?]]
        var outcome: [Bool]
        var folds: [Int]
        var c: Double
    }

    struct LogisticAnswer: Encodable {
        /// Each participant's out-of-fold probability.
        var probabilities: [Double]
        var auc: Double
    }

    struct TwoSample: Decodable {
        /// Participants × bins, one matrix per group.
        var first: [[Double]]
        var second: [[Double]]
        var permutations: Int
        var seed: UInt64
    }

    struct OneSample: Decodable {
        var values: [[Double]]
        var permutations: Int
        var seed: UInt64
    }

    struct Answer: Encodable {
        var quantiles: [Double]
        var welch: [[Double?]]
        var twoSample: [Test]
        var oneSample: [Test]
        var fdr: [[Double]]
        var isc: [Correlation]
        /// Each [low, high].
        var wilson: [[Double]]
        var survival: [SurvivalAnswer]
        /// Each [rho, p] (empty when undefined).
        var spearman: [[Double]]
        var logistic: [LogisticAnswer]
        var norms: [NormAnswer?]
        /// Each [mean, low, high, p].
        var markChange: [[Double]]
        /// Each [difference, low, high, t, p].
        var pairedT: [[Double]]
        var mcnemar: [Double]
        /// Each [z, p] (empty when undefined).
        var proportions: [[Double]]
        /// Each case's letters per group, at alpha 0.05.
        var letters: [[String]]
        /// Each case's weights (averaging 1, uncapped) and Kish's effective size last.
        var raking: [[Double]]
    }

    struct SurvivalAnswer: Encodable {
        /// The first group's Kaplan-Meier steps: [time, retained, low, high] (nil bounds where undefined).
        var steps: [[Double?]]
        var statistic: Double?
        var p: Double?
    }

    struct Correlation: Encodable {
        var isc: Double?
        var participants: [Double?]
        var low: Double?
        var high: Double?
    }

    struct Test: Encodable {
        var statistics: [Double?]
        var clusters: [Cluster]
        var permutations: Int
        var exact: Bool
        var threshold: Double
    }

    struct Cluster: Encodable {
        var start: Int
        var end: Int
        var mass: Double
        var p: Double
    }

    func run() throws {
        let cases = try JSONDecoder().decode(Cases.self, from: Data(contentsOf: URL(fileURLWithPath: input)))
        func matrix(_ rows: [[Double]]) -> SeriesMatrix {
            SeriesMatrix(rows.map { $0.map { Optional($0) } }, columns: rows.first?.count ?? 0)
        }
        func test(_ outcome: PermutationOutcome) -> Test {
            Test(
                statistics: (outcome.statistics.first ?? []).map { $0.isNaN ? nil : $0 },
                clusters: outcome.findings.map { Cluster(start: $0.start, end: $0.end, mass: $0.mass, p: $0.p) },
                permutations: outcome.permutations, exact: outcome.exact, threshold: outcome.thresholds.first ?? 0)
        }
        let answer = Answer(
            quantiles: cases.quantiles.map { StudentT.quantile($0[0], degrees: $0[1]) },
            welch: cases.welch.map { pair in
                guard let welch = Descriptive.welch(pair[0], pair[1]) else { return [] }
                return [welch.difference, welch.t, welch.degrees, welch.low, welch.high]
            },
            twoSample: cases.twoSample.map { item in
                let all = item.first + item.second
                let labels =
                    Array(repeating: 0, count: item.first.count) + Array(repeating: 1, count: item.second.count)
                return test(
                    GroupComparison(series: [matrix(all)], labels: labels, groupCount: 2, pairs: [(0, 1)])
                        .run(PermutationSettings(permutations: item.permutations, seed: item.seed)))
            },
            oneSample: cases.oneSample.map { item in
                test(
                    BaselineComparison(changes: [matrix(item.values)])
                        .run(PermutationSettings(permutations: item.permutations, seed: item.seed)))
            },
            fdr: cases.fdr.map(BenjaminiHochberg.adjust),
            isc: cases.isc.map { panel in
                let figure = IntersubjectCorrelation(series: [matrix(panel)], minimumBins: 3).run(
                    samples: 1000, seed: 5)[0]
                return Correlation(
                    isc: figure.isc, participants: figure.participants, low: figure.low, high: figure.high)
            },
            wilson: cases.wilson.map { pair in
                Descriptive.wilson(successes: pair[0], trials: pair[1]).map { [$0.low, $0.high] } ?? []
            },
            survival: cases.survival.map { groups in
                let viewers = groups.map { group in group.map { Survival.Viewer(time: $0[0], left: $0[1] == 1) } }
                let steps = Survival.kaplanMeier(viewers.first ?? []).map { [$0.time, $0.retained, $0.low, $0.high] }
                let test = Survival.logRank(viewers)
                return SurvivalAnswer(steps: steps, statistic: test?.statistic, p: test?.p)
            },
            spearman: cases.spearman.map { pair in
                RankCorrelation.spearman(pair[0], pair[1]).map { [$0.rho, $0.p, $0.low ?? .nan, $0.high ?? .nan] } ?? []
            },
            logistic: cases.logistic.map { item in
                let k = (item.folds.max() ?? 0) + 1
                let scores = CrossValidatedClassifier.outOfFold(
                    rows: item.rows, outcome: item.outcome, folds: item.folds, k: k, c: item.c)
                return LogisticAnswer(probabilities: scores, auc: CrossValidatedClassifier.auc(scores, item.outcome))
            },
            norms: cases.norms.map { item in
                let settings = NormPlacement.Settings(resamples: item.resamples, seed: 3)
                guard let result = NormPlacement.place(item.values, among: item.norm, settings: settings),
                    let mean = NormPlacement.meanInterval(item.values, resamples: item.resamples, seed: settings.seed)
                else { return nil }
                return NormAnswer(
                    value: result.value, median: result.normMedian, percentile: result.percentile, low: result.low,
                    high: result.high, p: result.p, exact: result.exact, meanLow: mean.low, meanHigh: mean.high)
            },
            markChange: cases.markChange.map { values in
                let test = StudyPage.pairedChange(values)
                return [test.mean ?? .nan, test.low ?? .nan, test.high ?? .nan, test.p ?? .nan]
            },
            pairedT: cases.pairedT.map { pair in
                PairwiseTests.pairedT(pair[0], pair[1]).map {
                    [$0.difference, $0.low ?? .nan, $0.high ?? .nan, $0.t ?? .nan, $0.p]
                } ?? []
            },
            mcnemar: cases.mcnemar.map { PairwiseTests.mcnemarExact(onlyA: $0[0], onlyB: $0[1]) },
            proportions: cases.proportions.map { item in
                PairwiseTests.twoProportions(yesA: item[0], nA: item[1], yesB: item[2], nB: item[3]).map {
                    [$0.z, $0.p]
                } ?? []
            },
            letters: cases.letters.map(Self.letters),
            raking: cases.raking.map { item in
                let outcome = Raking.rake(categories: item.categories, targets: item.targets, cap: nil)
                return outcome.converged ? outcome.weights + [Raking.effectiveSize(outcome.weights)] : []
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(answer), as: UTF8.self))
    }

    /// Column letters of groups' [yes, n], as `StudyPage.groupTables` makes them from comparisons.csv's rows.
    static func letters(_ groups: [[Int]]) -> [String] {
        var pairs: [(Int, Int, Double, Double)] = []
        var tested: [(Int, Int, Double, Double)] = []
        for i in groups.indices {
            for j in groups.indices where j > i {
                let test = PairwiseTests.twoProportions(
                    yesA: groups[i][0], nA: groups[i][1], yesB: groups[j][0], nB: groups[j][1])
                let difference =
                    Double(groups[i][0]) / Double(groups[i][1]) - Double(groups[j][0]) / Double(groups[j][1])
                tested.append((i, j, test?.p ?? 1, difference))
            }
        }
        let q = PairwiseTests.bonferroni(tested.map(\.2))
        for (index, pair) in tested.enumerated() { pairs.append((pair.0, pair.1, q[index], pair.3)) }
        let names = groups.indices.map { String(UnicodeScalar(UInt8(97 + $0))) }
        return PairwiseTests.letters(columns: groups.count, pairs: pairs, alpha: 0.05, names: names)
    }
}
