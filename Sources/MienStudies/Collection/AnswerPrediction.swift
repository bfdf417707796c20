import Foundation
import Mien
package import MienStatistics

/// Whether the faces predict the answers (issue 80 item 2, the prediction).
///
/// For each stimulus and each scale
/// question asked after it or at the end, a cross-validated logistic model (`CrossValidatedClassifier`) of whether
/// a participant answered above the scale's middle (5 points: 4-5; 7 points: 5-7; 11 points: 6-10; McDuff et al.
/// 2015 predict liked against not) from a small set of response features fixed before any answer is seen
/// (`modelFeatures`: each headline metric's mean and smile's change at each mark, those measured in 90 % of them or
/// more; issue 95 item 3: ~30 collinear features for 20-30 people did worse than smile's mean alone).
/// `prediction.csv`: the cross-validated AUC always beside the prediction, with its interval and its permutation p
/// (one statistic: `CrossValidatedClassifier`), and the one-feature baseline (smile's mean) beside it.
///
/// Not testable below 20 participants who answered or 5 on either side of the middle: with fewer, a fold of five
/// may hold no one of a class and the AUC's interval spans most of 0-1.
package enum AnswerPrediction {
    package static let minimumParticipants = 20
    package static let minimumPerClass = 5
    package static let header =
        "stimulus,question,outcome,n,positives,features,folds,repeats,auc,low,high,p,passes,method,baselineFeature,baselineAuc,reason"
    /// The one-feature baseline reported beside the model.
    package static let baselineFeature = "expressions.smile mean"

    /// The model's features for a stimulus with `marks`, in `StudyFeatures.byParticipant`'s "METRIC FEATURE" keys.
    ///
    /// Each headline metric's mean, then smile's `change.MARK` for each mark name (the response McDuff et al. 2015
    /// relate to liking). Fixed before the answers are read, so no selection happens on the data that is tested.
    package static func modelFeatures(marks: [String]) -> [String] {
        StudyFeatures.metrics.map { "\($0) mean" } + marks.map { "expressions.smile change.\($0)" }
    }

    /// The method, in the study's notes.
    package static func note(alpha: Double, settings: CrossValidatedClassifier.Settings = .init()) -> String {
        let level = ResultTable.number((1 - alpha) * 100, places: 1)
        return
            "Prediction from the faces (prediction.csv): whether each participant answered a scale above its middle, predicted from a fixed set of response features (each headline metric's mean and smile's change at each mark) by L2 logistic regression (C = \(ResultTable.number(settings.c, places: 3)); features filled with the training fold's mean and standardised on it), \(settings.folds)-fold cross-validation stratified by the answer, folds of participants, repeated \(settings.repeats) times. The figure is the repetitions' mean out-of-fold ROC AUC; its test is that same mean against the answers permuted across participants (\(settings.permutations) permutations, every model refitted; two-sided, passes above 0.5 at p < \(ResultTable.number(alpha, places: 3))); its \(level) % interval inverts that test under a shift (Ernst 2004), so it holds the estimate and excludes 0.5 exactly when the test passes. Smile's mean alone, cross-validated on the same folds, is given beside it. Not testable below \(minimumParticipants) participants or \(minimumPerClass) on either side."
    }

    /// Whether `score` is above the middle of `question`'s scale.
    static func above(_ score: Int, _ question: StudyQuestions.Question) -> Bool {
        guard let range = question.range else { return false }
        return Double(score) > Double(range.lowerBound + range.upperBound) / 2
    }

    /// One stimulus and question: the prediction, or why there is none.
    package struct Row: Sendable, Equatable {
        package var stimulus: String
        package var question: String
        package var outcome: String
        package var n: Int
        package var positives: Int
        package var features: Int?
        package var repeats: Int?
        package var result: CrossValidatedClassifier.Result?
        package var passes: Bool?
        /// Smile's mean alone, cross-validated on the same folds (nil when it is not measured in 90 %).
        package var baselineAUC: Double?
        package var reason: String?
    }

    /// Every row of `study` against the scale answers its collected `sessions` hold.
    package static func rows(
        _ study: Study, sessions: [ParticipantSession], questions: StudyQuestions,
        settings: CrossValidatedClassifier.Settings = .init()
    ) -> [Row] {
        var rows: [Row] = []
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        var classifier = settings
        classifier.seed = study.settings.seed
        classifier.alpha = study.settings.alpha
        for stimulus in study.stimuli {
            let features = StudyFeatures.byParticipant(study, stimulus: stimulus)
            var markNames: [String] = []
            for mark in study.settings.marks.filter({ $0.stimulus == stimulus }).sorted(by: { $0.time < $1.time })
            where !markNames.contains(mark.name) {
                markNames.append(mark.name)
            }
            let candidates = modelFeatures(marks: markNames)
            for question in questions.questions
            where question.kind == .scale && [stimulus, nil].contains(question.after) {
                let answered = features.keys.sorted().compactMap { id -> (String, Bool)? in
                    byParticipant[id]?.answer(question.id)?.score.map { (id, above($0, question)) }
                }
                let positives = answered.filter(\.1).count
                var row = Row(
                    stimulus: stimulus, question: question.id,
                    outcome: "above the middle of the \(question.points ?? 0)-point scale", n: answered.count,
                    positives: positives)
                let smaller = min(positives, answered.count - positives)
                guard answered.count >= minimumParticipants, smaller >= minimumPerClass else {
                    row.reason =
                        "not testable: \(answered.count) included participants answered, \(smaller) on the smaller side (a prediction needs \(minimumParticipants), and \(minimumPerClass) on each side)"
                    rows.append(row)
                    continue
                }
                let measured = { (key: String) in
                    Double(answered.filter { features[$0.0]?[key] != nil }.count) >= 0.9 * Double(answered.count)
                }
                let keys = candidates.filter(measured)
                row.features = keys.count
                guard !keys.isEmpty,
                    let result = CrossValidatedClassifier.evaluate(
                        rows: answered.map { id, _ in keys.map { features[id]?[$0] } }, outcome: answered.map(\.1),
                        settings: classifier)
                else {
                    row.reason = "not testable: no feature measured in 90 % of those who answered"
                    rows.append(row)
                    continue
                }
                row.repeats = classifier.repeats
                row.result = result
                row.passes = result.passes
                if measured(baselineFeature) {
                    row.baselineAUC = CrossValidatedClassifier.baseline(
                        rows: answered.map { id, _ in [features[id]?[baselineFeature]] }, outcome: answered.map(\.1),
                        settings: classifier)
                }
                rows.append(row)
            }
        }
        return rows
    }

    /// `prediction.csv`.
    package static func csv(_ rows: [Row]) -> String {
        let lines = rows.map { row -> String in
            var cells: [String] = [row.stimulus, row.question, row.outcome, String(row.n), String(row.positives)]
            cells.append(row.features.map(String.init) ?? "")
            if let result = row.result {
                let figures: [String] = [
                    String(result.folds), row.repeats.map(String.init) ?? "", ResultTable.number(result.auc, places: 4),
                    ResultTable.number(result.low, places: 4), ResultTable.number(result.high, places: 4),
                    String(format: "%.6g", result.p), row.passes == true ? "1" : "0", "logistic-cv-permutation",
                    row.baselineAUC == nil ? "" : baselineFeature,
                    row.baselineAUC.map { ResultTable.number($0, places: 4) } ?? "",
                ]
                cells += figures
            } else {
                cells += Array(repeating: "", count: 10)
            }
            cells.append(row.reason ?? "")
            return cells.map(ResultTable.quoted).joined(separator: ",")
        }
        return ([header] + lines).joined(separator: "\n") + "\n"
    }
}
