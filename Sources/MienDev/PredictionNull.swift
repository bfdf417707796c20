import ArgumentParser
import Foundation
import MienStatistics

/// `MienDev prediction-null`: the calibration of the faces' prediction of answers (issue 95 item 3).
///
/// Panels shaped like a study's (20-30 participants, the model's fixed features: five headline means that share a
/// common factor, as a face's smile, joy and valence do, and one change at a mark), whose 7-point answers are drawn
/// independently of the faces (`--strength 0`: answers shuffled across participants, nothing to predict) or from the
/// first feature, smile's mean (`--strength` > 0). Prints one JSON line: how often the interval holds 0.5, how often
/// the test passes, the model's and smile-alone's mean AUC, the seconds taken.
struct PredictionNull: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prediction-null",
        abstract: "Calibrate the cross-validated prediction on panels whose answers do not depend on the faces.")

    @Option(help: "Panels.") var panels = 200
    @Option(help: "How strongly answers follow the first feature (0: not at all), in standard deviations.")
    var strength = 0.0
    @Option(help: "Cross-validation repetitions (the report's default: 10).") var repeats = 10
    @Option(help: "Permutations (the report's default: 199).") var permutations = 199
    @Option(help: "Seed of the panels.") var seed: UInt64 = 95

    func validate() throws {
        guard panels >= 1, repeats >= 1, permutations >= 19 else {
            throw ValidationError("--panels and --repeats must be at least 1 and --permutations at least 19")
        }
    }

    func run() throws {
        var generator = SeededGenerator(seed: seed)
        func uniform() -> Double { (Double(generator.next() >> 11) + 1) / 9_007_199_254_740_992 }
        func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform()) }
        var settings = CrossValidatedClassifier.Settings()
        settings.repeats = repeats
        settings.permutations = permutations
        var holds = 0
        var passes = 0
        var disagree = 0
        var tested = 0
        var aucs: [Double] = []
        var alone: [Double] = []
        let clock = ContinuousClock()
        let start = clock.now
        for panel in 0..<panels {
            let n = 20 + generator.below(11)
            var rows: [[Double?]] = []
            var outcome: [Bool] = []
            // Drawn again until 5 or more answered on each side: a study tests nothing with fewer
            // (`AnswerPrediction.minimumPerClass`).
            while min(outcome.filter { $0 }.count, outcome.filter { !$0 }.count) < 5 {
                (rows, outcome) = ([], [])
                for _ in 0..<n {
                    let common = normal()
                    var row: [Double?] = (0..<5).map { feature in
                        // A shared factor (r about 0.5 between features), on each metric's own scale.
                        Double(feature + 1) * 8 * (0.7 * common + 0.7 * normal()) + 30
                    }
                    row.append(6 * normal())
                    rows.append(row)
                    let first = ((row[0] ?? 30) - 30) / 8
                    let answer = 4 + strength * first + 1.5 * normal()
                    outcome.append(answer.rounded() > 4)
                }
            }
            settings.seed = UInt64(panel + 1)
            guard let result = CrossValidatedClassifier.evaluate(rows: rows, outcome: outcome, settings: settings),
                let baseline = CrossValidatedClassifier.baseline(
                    rows: rows.map { [$0[0]] }, outcome: outcome, settings: settings)
            else { continue }
            tested += 1
            if result.low <= 0.5 && 0.5 <= result.high { holds += 1 }
            if result.passes { passes += 1 }
            if result.passes != (result.low > 0.5) || result.auc < result.low || result.auc > result.high {
                disagree += 1
            }
            aucs.append(result.auc)
            alone.append(baseline)
        }
        let seconds = (clock.now - start) / .seconds(1)
        let mean = { (values: [Double]) in values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
        let beaten = zip(aucs, alone).filter { $0.1 > $0.0 }.count
        let line: [String: Any] = [
            "panels": tested, "strength": strength, "repeats": repeats, "permutations": permutations,
            "intervalHolds05": holds, "passes": passes, "disagreements": disagree,
            "meanAUC": mean(aucs), "meanSmileAloneAUC": mean(alone), "smileAloneHigher": beaten,
            "seconds": seconds,
        ]
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
