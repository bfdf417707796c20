import Foundation
import Mien
import MienStatistics

/// What in the faces relates to the answers (issue 80 item 2, the correlations).
///
/// For each stimulus and each scale question asked after it or at the end, Spearman's ρ of every response feature
/// (`StudyFeatures`) with the answer over the included participants who answered, p corrected by Benjamini-Hochberg
/// over that question's features (false discoveries at the study's alpha). `relations.csv`.
///
/// Not testable below `minimumParticipants`: with 10, a feature must reach |ρ| ≥ 0.65 for p < 0.05 before any
/// correction, and a panel smaller than that says little about a brand's advert; a row then says so.
package enum AnswerRelations {
    /// The fewest participants with both the feature and the answer for a correlation.
    package static let minimumParticipants = 10
    package static let header = "stimulus,question,metric,feature,n,rho,low,high,p,q,passes,difference,reason"

    /// One feature against one question's answers, or why it could not be tested (`metric` empty: the question).
    package struct Row: Sendable, Equatable {
        package var stimulus: String
        package var question: String
        package var metric = ""
        package var feature = ""
        package var n: Int
        package var rho: Double?
        /// ρ's 95 % interval (Fisher's z, Bonett-Wright variance; `RankCorrelation`).
        package var low: Double?
        package var high: Double?
        package var p: Double?
        package var q: Double?
        package var passes: Bool?
        /// The feature's mean among those who answered above the scale's middle minus the others'.
        ///
        /// In the feature's own units (points for a mean, peak, `after` or `change`); nil when either side is empty.
        /// The summary words a relation in points only when this reaches the study's `minimumEffect` (issue 95 item 5).
        package var difference: Double?
        package var reason: String?

        /// Whether the feature is in the metric's points (`mean`, `peak`, `after.MARK`, `change.MARK`), so the
        /// study's minimum effect applies to `difference`.
        package var inPoints: Bool {
            ["mean", "peak"].contains(feature) || feature.hasPrefix("after.") || feature.hasPrefix("change.")
        }
    }

    /// The method, in the study's notes.
    package static func note(alpha: Double) -> String {
        "Faces and answers (relations.csv): Spearman's rank correlation of each response feature (features.csv) with each scale answer, over the included participants who answered; p from Student's t with n - 2 degrees of freedom, a 95 % interval for rho by Fisher's z (Bonett-Wright variance), p corrected by Benjamini-Hochberg over the features of each stimulus and question (false discoveries at \(ResultTable.number(alpha, places: 3))); difference: the feature's mean among those answering above the scale's middle minus the others'; the summary words a relation of a feature in points only when that difference reaches the minimum effect (--min-effect), and features in other units (peakTime, area, lastQuarterSlope, episodes) with their difference in their units; not testable below \(minimumParticipants) participants."
    }

    /// Every row of `study` against the scale answers its collected `sessions` hold.
    package static func rows(_ study: Study, sessions: [ParticipantSession], questions: StudyQuestions) -> [Row] {
        var rows: [Row] = []
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        for stimulus in study.stimuli {
            let features = StudyFeatures.byParticipant(study, stimulus: stimulus)
            let keys = Set(features.values.flatMap(\.keys)).sorted()
            for question in questions.questions
            where question.kind == .scale && [stimulus, nil].contains(question.after) {
                let answers = features.keys.sorted().compactMap { id -> (String, Double)? in
                    byParticipant[id]?.answer(question.id)?.score.map { (id, Double($0)) }
                }
                func row(_ key: String, n: Int) -> Row {
                    let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
                    return Row(
                        stimulus: stimulus, question: question.id, metric: parts.first ?? "",
                        feature: parts.count > 1 ? parts[1] : "", n: n)
                }
                guard answers.count >= minimumParticipants else {
                    var untestable = row("", n: answers.count)
                    untestable.reason =
                        "not testable: \(answers.count) included participant\(answers.count == 1 ? "" : "s") answered (a rank correlation needs \(minimumParticipants))"
                    rows.append(untestable)
                    continue
                }
                var tested: [Row] = []
                var untestable: [Row] = []
                for key in keys {
                    let pairs = answers.compactMap { id, score in features[id]?[key].map { ($0, score) } }
                    var entry = row(key, n: pairs.count)
                    if pairs.count < minimumParticipants {
                        entry.reason = "not testable: the feature is measured in \(pairs.count) who answered"
                        untestable.append(entry)
                    } else if let result = RankCorrelation.spearman(pairs.map(\.0), pairs.map(\.1)) {
                        (entry.rho, entry.low, entry.high, entry.p) = (result.rho, result.low, result.high, result.p)
                        let high = pairs.filter { AnswerPrediction.above(Int(saturating: $0.1), question) }.map(\.0)
                        let low = pairs.filter { !AnswerPrediction.above(Int(saturating: $0.1), question) }.map(\.0)
                        if !high.isEmpty, !low.isEmpty {
                            entry.difference =
                                high.reduce(0, +) / Double(high.count) - low.reduce(0, +) / Double(low.count)
                        }
                        tested.append(entry)
                    } else {
                        entry.reason = "not testable: the feature or the answer is the same for everyone"
                        untestable.append(entry)
                    }
                }
                let q = BenjaminiHochberg.adjust(tested.compactMap(\.p))
                for index in tested.indices {
                    tested[index].q = q[index]
                    tested[index].passes = q[index] < study.settings.alpha
                }
                rows += tested + untestable
            }
        }
        return rows
    }

    /// `relations.csv`.
    package static func csv(_ rows: [Row]) -> String {
        let lines = rows.map { row -> String in
            let figure = { (value: Double?) -> String in value.map { ResultTable.number($0, places: 4) } ?? "" }
            let general = { (value: Double?) -> String in value.map { String(format: "%.6g", $0) } ?? "" }
            var cells: [String] = [row.stimulus, row.question, row.metric, row.feature, String(row.n)]
            cells += [figure(row.rho), figure(row.low), figure(row.high), general(row.p), general(row.q)]
            cells += [row.passes.map { $0 ? "1" : "0" } ?? "", figure(row.difference), row.reason ?? ""]
            return cells.map(ResultTable.quoted).joined(separator: ",")
        }
        return ([header] + lines).joined(separator: "\n") + "\n"
    }
}
