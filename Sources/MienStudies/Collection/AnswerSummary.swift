import Foundation
import Mien
import MienStatistics

/// What study.html's summary says of each stimulus's scale answers, in plain words: how high each answer is, whether
/// the faces predict it (always with the cross-validated AUC), which face features go with it, and when a test could
/// not be made, why.
package enum AnswerSummary {
    /// Lines by stimulus, from the answers of the included participants and the tables already computed.
    package static func lines(
        _ study: Study, sessions: [ParticipantSession], questions: StudyQuestions, relations: [AnswerRelations.Row],
        prediction: [AnswerPrediction.Row]
    ) -> [String: [String]] {
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String: [String]] = [:]
        for stimulus in study.stimuli {
            let included = Set(
                study.participants.filter { $0.included && $0.row.stimulus == stimulus }.map(\.row.participant))
            for question in questions.questions
            where question.kind == .scale && [stimulus, nil].contains(question.after) {
                let scores = included.sorted().compactMap { byParticipant[$0]?.answer(question.id)?.score }
                var words = ["\(question.text) (\(question.id), \(question.points ?? 0) points)"]
                guard !scores.isEmpty else {
                    lines[stimulus, default: []].append(words[0] + ": no included viewer answered.")
                    continue
                }
                let interval = Descriptive.meanInterval(scores.map(Double.init))
                let mean = interval.mean.map { number($0) } ?? ""
                let range =
                    interval.low.flatMap { low in interval.high.map { " [\(number(low)), \(number($0))]" } } ?? ""
                let above = scores.filter { AnswerPrediction.above($0, question) }.count
                let share =
                    Descriptive.wilson(successes: above, trials: scores.count).map {
                        " [\(percent($0.low)), \(percent($0.high))]"
                    } ?? ""
                words.append(
                    "mean \(mean)\(range) of \(question.range.map { "\($0.lowerBound)-\($0.upperBound)" } ?? ""), "
                        + "\(percent(Double(above) / Double(scores.count)))\(share) above the middle (\(question.anchors?.last ?? "high") side), n = \(scores.count)."
                )
                if let row = prediction.first(where: { $0.stimulus == stimulus && $0.question == question.id }) {
                    if let result = row.result {
                        let level = ResultTable.number((1 - study.settings.alpha) * 100, places: 0)
                        let baseline = row.baselineAUC.map { "; smile's mean alone: AUC \(number($0))" } ?? ""
                        let figure =
                            "cross-validated AUC \(number(result.auc)) (\(level) % interval \(number(result.low))-\(number(result.high)), permutation \(stated("p", result.p))\(baseline))"
                        words.append(
                            row.passes == true
                                ? "The faces predict whether a viewer answers above the middle: \(figure)."
                                : "The faces do not predict it beyond chance: \(figure).")
                    } else if let reason = row.reason {
                        words.append("Whether the faces predict it: \(reason).")
                    }
                }
                let mine = relations.filter { $0.stimulus == stimulus && $0.question == question.id }
                let significant = mine.filter { $0.passes == true }
                // Issue 95 item 5: a relation in points is worded only with a difference of the minimum effect.
                let passing = significant.filter {
                    !$0.inPoints || abs($0.difference ?? 0) >= study.settings.minimumEffect - 1e-9
                }.sorted { ($0.q ?? 1) < ($1.q ?? 1) }
                let small = significant.count - passing.count
                let smallWords =
                    small > 0
                    ? " \(small) more pass\(small == 1 ? "es" : "") with viewers above the middle differing by less than the \(number(study.settings.minimumEffect))-point minimum effect (relations.csv)."
                    : ""
                if let reason = mine.first(where: { $0.metric.isEmpty })?.reason {
                    words.append("Which face features go with it: \(reason).")
                } else if passing.isEmpty {
                    words.append(
                        "No single face feature goes with it by at least the minimum effect after correcting for the \(mine.filter { $0.p != nil }.count) tested (false discoveries at \(number(study.settings.alpha)))."
                            + smallWords)
                } else {
                    words.append(
                        "Higher answers went with "
                            + passing.prefix(3).map(related).joined(separator: "; ")
                            + (passing.count > 3 ? "; and \(passing.count - 3) more (relations.csv)." : ".")
                            + smallWords)
                }
                lines[stimulus, default: []].append(words[0] + ": " + words.dropFirst().joined(separator: " "))
            }
        }
        return lines
    }

    static func number(_ value: Double) -> String { ResultTable.number(value, places: 2) }

    /// "higher mean of smile (ρ = 0.61 [0.27, 0.82], q = 0.01)": the direction from the sign of ρ (issue 95: a
    /// negative ρ was worded as positive), with its interval.
    static func related(_ row: AnswerRelations.Row) -> String {
        let rho = row.rho ?? 0
        let direction = rho < 0 ? "lower" : "higher"
        let difference =
            row.difference.map {
                "; \($0 < 0 ? "" : "+")\(number($0))\(row.inPoints ? " points" : "") above the middle"
            }
            ?? ""
        let figures = "ρ = \(number(rho))\(interval(row.low, row.high)), \(stated("q", row.q ?? 1))\(difference)"
        return "\(direction) \(row.feature) of \(StudyPage.label(row.metric).lowercased()) (\(figures))"
    }
    /// " [low, high]" when both are known, else nothing.
    static func interval(_ low: Double?, _ high: Double?) -> String {
        guard let low, let high else { return "" }
        return " [\(number(low)), \(number(high))]"
    }
    static func percent(_ share: Double) -> String { "\(ResultTable.number(share * 100, places: 0)) %" }
    static func probability(_ p: Double) -> String { p < 0.001 ? "< 0.001" : ResultTable.number(p, places: 3) }
    /// `name = p`, or `name < 0.001` (never "q = < 0.001").
    static func stated(_ name: String, _ p: Double) -> String {
        p < 0.001 ? "\(name) < 0.001" : "\(name) = \(ResultTable.number(p, places: 3))"
    }
}
