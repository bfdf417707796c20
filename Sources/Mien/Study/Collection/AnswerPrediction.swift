import Foundation
package import MienStatistics

/// Whether the faces predict the answers (issue 80 item 2, the prediction).
///
/// For each stimulus and each scale
/// question asked after it or at the end, a cross-validated logistic model (`CrossValidatedClassifier`) of whether
/// a participant answered above the scale's middle (5 points: 4-5; 7 points: 5-7; 11 points: 6-10; McDuff et al.
/// 2015 predict liked against not) from their response features (`StudyFeatures`, those measured in 90 % of them
/// or more). `prediction.csv`: the cross-validated AUC always beside the prediction, with its interval and its
/// permutation p.
///
/// Not testable below 20 participants who answered or 5 on either side of the middle: with fewer, a fold of five
/// may hold no one of a class and the AUC's interval spans most of 0-1.
package enum AnswerPrediction {
    package static let minimumParticipants = 20
    package static let minimumPerClass = 5
    package static let header =
        "stimulus,question,outcome,n,positives,features,folds,repeats,auc,low,high,p,passes,method,reason"

    /// The method, in the study's notes.
    package static func note(alpha: Double, settings: CrossValidatedClassifier.Settings = .init()) -> String {
        "Prediction from the faces (prediction.csv): whether each participant answered a scale above its middle, predicted from their response features by L2 logistic regression (C = \(ResultTable.number(settings.c, places: 3)); features filled with the training fold's mean and standardised on it), \(settings.folds)-fold cross-validation stratified by the answer, folds of participants, repeated \(settings.repeats) times: the mean out-of-fold ROC AUC with a 95 % bootstrap interval over participants (\(settings.bootstrap) resamples), tested against the answers permuted across participants (\(settings.permutations) permutations; passes at p < \(ResultTable.number(alpha, places: 3))); not testable below \(minimumParticipants) participants or \(minimumPerClass) on either side."
    }

    /// Whether `score` is above the middle of `question`'s scale.
    static func above(_ score: Int, _ question: StudyQuestions.Question) -> Bool {
        guard let range = question.range else { return false }
        return Double(score) > Double(range.lowerBound + range.upperBound) / 2
    }

    /// `prediction.csv` of `study` against the scale answers its collected `sessions` hold.
    package static func csv(
        _ study: Study, sessions: [ParticipantSession], questions: StudyQuestions,
        settings: CrossValidatedClassifier.Settings = .init()
    ) -> String {
        var lines = [header]
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        var classifier = settings
        classifier.seed = study.settings.seed
        for stimulus in study.stimuli {
            let marks = study.settings.marks.filter { $0.stimulus == stimulus }
            var features: [String: [String: Double]] = [:]
            for series in study.participants where series.included && series.row.stimulus == stimulus {
                for feature in StudyFeatures.features(of: series, bin: study.settings.bin, marks: marks) {
                    features[series.row.participant, default: [:]]["\(feature.metric) \(feature.name)"] = feature.value
                }
            }
            for question in questions.questions
            where question.kind == .scale && [stimulus, nil].contains(question.after) {
                let outcome = "above the middle of the \(question.points ?? 0)-point scale"
                let answered = features.keys.sorted().compactMap { id -> (String, Bool)? in
                    byParticipant[id]?.answer(question.id)?.score.map { (id, above($0, question)) }
                }
                let positives = answered.filter(\.1).count
                let cells = { (values: [String]) in
                    ([stimulus, question.id, outcome] + values).map(ResultTable.quoted).joined(separator: ",")
                }
                let smaller = min(positives, answered.count - positives)
                guard answered.count >= minimumParticipants, smaller >= minimumPerClass else {
                    lines.append(
                        cells([
                            String(answered.count), String(positives), "", "", "", "", "", "", "", "", "",
                            "not testable: \(answered.count) included participants answered, \(smaller) on the smaller side (a prediction needs \(minimumParticipants), and \(minimumPerClass) on each side)",
                        ]))
                    continue
                }
                let counts = answered.reduce(into: [String: Int]()) { counts, entry in
                    for key in (features[entry.0] ?? [:]).keys { counts[key, default: 0] += 1 }
                }
                let keys = counts.filter { Double($0.value) >= 0.9 * Double(answered.count) }.keys.sorted()
                let rows = answered.map { id, _ in keys.map { features[id]?[$0] } }
                guard !keys.isEmpty,
                    let result = CrossValidatedClassifier.evaluate(
                        rows: rows, outcome: answered.map(\.1), settings: classifier)
                else {
                    lines.append(
                        cells([
                            String(answered.count), String(positives), String(keys.count), "", "", "", "", "", "", "",
                            "", "not testable: no feature measured in 90 % of those who answered",
                        ]))
                    continue
                }
                lines.append(
                    cells([
                        String(result.n), String(result.positives), String(keys.count), String(result.folds),
                        String(classifier.repeats), ResultTable.number(result.auc, places: 4),
                        ResultTable.number(result.low, places: 4), ResultTable.number(result.high, places: 4),
                        String(format: "%.6g", result.p), result.p < study.settings.alpha ? "1" : "0",
                        "logistic-cv-permutation", "",
                    ]))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
