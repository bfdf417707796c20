import Foundation
import MienStatistics

/// What in the faces relates to the answers (issue 80 item 2, the correlations).
///
/// For each stimulus and each scale
/// question asked after it or at the end, Spearman's ρ of every response feature (`StudyFeatures`) with the answer
/// over the included participants who answered, p corrected by Benjamini-Hochberg over that question's features
/// (false discoveries at the study's alpha). `relations.csv`.
///
/// Not testable below `minimumParticipants`: with 10, a feature must reach |ρ| ≥ 0.65 for p < 0.05 before any
/// correction, and a panel smaller than that says little about a brand's advert; a row then says so.
package enum AnswerRelations {
    /// The fewest participants with both the feature and the answer for a correlation.
    package static let minimumParticipants = 10
    package static let header = "stimulus,question,metric,feature,n,rho,p,q,passes,reason"

    /// The method, in the study's notes.
    package static func note(alpha: Double) -> String {
        "Faces and answers (relations.csv): Spearman's rank correlation of each response feature (features.csv) with each scale answer, over the included participants who answered; p from Student's t with n - 2 degrees of freedom, corrected by Benjamini-Hochberg over the features of each stimulus and question (false discoveries at \(ResultTable.number(alpha, places: 3))); not testable below \(minimumParticipants) participants."
    }

    /// `relations.csv` of `study` against the scale answers its collected `sessions` hold.
    package static func csv(_ study: Study, sessions: [ParticipantSession], questions: StudyQuestions) -> String {
        var lines = [header]
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        for stimulus in study.stimuli {
            let marks = study.settings.marks.filter { $0.stimulus == stimulus }
            var features: [String: [String: Double]] = [:]
            for series in study.participants where series.included && series.row.stimulus == stimulus {
                for feature in StudyFeatures.features(of: series, bin: study.settings.bin, marks: marks) {
                    features[series.row.participant, default: [:]]["\(feature.metric) \(feature.name)"] = feature.value
                }
            }
            let keys = Set(features.values.flatMap(\.keys)).sorted()
            for question in questions.questions
            where question.kind == .scale && [stimulus, nil].contains(question.after) {
                let answers = features.keys.compactMap { id -> (String, Double)? in
                    byParticipant[id]?.answer(question.id)?.score.map { (id, Double($0)) }
                }
                let cells = {
                    (key: String, n: Int, rho: String, p: String, q: String, passes: String, reason: String) in
                    let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
                    return [
                        stimulus, question.id, parts.first ?? "", parts.last ?? "", String(n), rho, p, q, passes,
                        reason,
                    ]
                    .map(ResultTable.quoted).joined(separator: ",")
                }
                guard answers.count >= minimumParticipants else {
                    lines.append(
                        cells(
                            " ", answers.count, "", "", "", "",
                            "not testable: \(answers.count) included participant\(answers.count == 1 ? "" : "s") answered (a rank correlation needs \(minimumParticipants))"
                        ))
                    continue
                }
                var tested: [(key: String, result: RankCorrelation.Result)] = []
                var untestable: [(key: String, n: Int, reason: String)] = []
                for key in keys {
                    let pairs = answers.compactMap { id, score in features[id]?[key].map { ($0, score) } }
                    if pairs.count < minimumParticipants {
                        untestable.append(
                            (key, pairs.count, "not testable: the feature is measured in \(pairs.count) who answered"))
                    } else if let result = RankCorrelation.spearman(pairs.map(\.0), pairs.map(\.1)) {
                        tested.append((key, result))
                    } else {
                        untestable.append(
                            (key, pairs.count, "not testable: the feature or the answer is the same for everyone"))
                    }
                }
                let q = BenjaminiHochberg.adjust(tested.map(\.result.p))
                for (index, test) in tested.enumerated() {
                    lines.append(
                        cells(
                            test.key, test.result.n, ResultTable.number(test.result.rho, places: 4),
                            String(format: "%.6g", test.result.p), String(format: "%.6g", q[index]),
                            q[index] < study.settings.alpha ? "1" : "0", ""))
                }
                for entry in untestable { lines.append(cells(entry.key, entry.n, "", "", "", "", entry.reason)) }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
