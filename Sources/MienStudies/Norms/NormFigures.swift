import Foundation
import Mien

/// The figures a norm keeps of a stimulus and compares it on (issue 80 item 4), each a mean over the stimulus's
/// included participants of one number per participant, so a stimulus's place among the norm can be resampled over
/// its participants (`NormPlacement`).
///
/// - Per headline metric (`StudyFeatures.metrics`): the response features `mean`, `peak` and `lastQuarterSlope`, and
///   per mark `after.MARK` and `change.MARK` (a norm of adverts with a `brand` mark compares the response to the
///   brand). `peakTime`, `area` and `episodes` are kept in features.csv but not compared: they grow with the
///   stimulus's length, and a norm holds adverts of many lengths.
/// - `attention`: the share of the stimulus the viewer watched (`onScreenShare`), percent.
/// - `answer ID (N points)`: a scale question's score, asked after the stimulus (or at the end of a study of one
///   stimulus); the same ID and number of points in another study is taken as the same question. `top2box ID (N
///   points)`: whether that score is in the scale's top two boxes (100 or 0), so the mean is the top-2-box share.
/// - `recall ID`: whether a recall question (a single choice with `correct:`) was answered with its right option
///   (100 or 0), so the mean is kpis.csv's `ID.correct` share; the same ID in another study is the same question.
package enum NormFigures {
    /// The response features compared, besides the marks'.
    package static let features = ["mean", "peak", "lastQuarterSlope"]
    /// The figure of watching.
    package static let attention = "attention"

    /// What a norms store's figures are made of: a store whose set differs was made by another Mien and is refused
    /// (`NormSet`), since its figures would not mean the same.
    package struct FigureSet: Sendable, Codable, Equatable {
        package var metrics: [String]
        package var features: [String]
        package var marks: [String]
        package var viewing: [String]

        /// This Mien's.
        package static let current = FigureSet(
            metrics: StudyFeatures.metrics, features: NormFigures.features, marks: ["after.MARK", "change.MARK"],
            viewing: [NormFigures.attention])

        /// What a store's set has that this one (this Mien's) lacks and the reverse, in words; empty when they agree.
        package func differences(fromStore other: FigureSet) -> [String] {
            var words: [String] = []
            for (name, mine, theirs) in [
                ("metrics", metrics, other.metrics), ("features", features, other.features),
                ("mark features", marks, other.marks), ("viewing figures", viewing, other.viewing),
            ] {
                let missing = theirs.filter { !mine.contains($0) }
                let extra = mine.filter { !theirs.contains($0) }
                if !missing.isEmpty { words.append("\(name) \(missing.joined(separator: ", ")) only in the store") }
                if !extra.isEmpty { words.append("\(name) \(extra.joined(separator: ", ")) only in this Mien") }
            }
            return words
        }
    }

    /// A scale answer's figure name.
    package static func answer(_ question: String, points: Int) -> String { "answer \(question) (\(points) points)" }

    /// A scale's top-two-box figure name (issue 98 item 2): per participant 100 when they answered in the top two
    /// boxes (`StudyKPIs.topTwo`), else 0, so its mean over a stimulus's participants is kpis.csv's `ID.top2box`.
    package static func topTwoBox(_ question: String, points: Int) -> String {
        "top2box \(question) (\(points) points)"
    }

    /// A recall question's figure name (issue 98 item 2): per participant 100 for the right option, else 0.
    package static func recall(_ question: String) -> String { "recall \(question)" }

    /// Both figures of one scale answer.
    static func scaleFigures(_ question: String, points: Int, score: Double) -> [(String, Double)] {
        [
            (answer(question, points: points), score),
            (topTwoBox(question, points: points), score >= Double(StudyKPIs.topTwo(points: points)) ? 100 : 0),
        ]
    }

    /// Each figure of `stimulus`'s included participants: figure name to participant to value.
    /// - Parameter answers: each participant's scale answers that concern this stimulus, by figure name (`answer`).
    package static func perParticipant(
        _ study: Study, stimulus: String, answers: [String: [String: Double]] = [:]
    ) -> [String: [String: Double]] {
        let marks = study.settings.marks.filter { $0.stimulus == stimulus }
        var figures: [String: [String: Double]] = [:]
        for series in study.participants where series.included && series.row.stimulus == stimulus {
            let participant = series.row.participant
            for feature in StudyFeatures.features(of: series, bin: study.settings.bin, marks: marks)
            where features.contains(feature.name) || feature.name.hasPrefix("after.")
                || feature.name.hasPrefix("change.")
            {
                figures["\(feature.metric) \(feature.name)", default: [:]][participant] = feature.value
            }
            if let share = series.onScreenShare { figures[attention, default: [:]][participant] = share * 100 }
            for (name, score) in answers[participant] ?? [:] { figures[name, default: [:]][participant] = score }
        }
        return figures
    }

    /// The scale answers that concern `stimulus`, by participant then figure name, from the sessions: questions
    /// asked after it, and those at the end when the study has no other stimulus.
    package static func answers(
        _ sessions: [ParticipantSession], questions: StudyQuestions?, stimulus: String, onlyStimulus: Bool
    ) -> [String: [String: Double]] {
        guard let questions else { return [:] }
        var answers: [String: [String: Double]] = [:]
        for question in questions.questions where question.after == stimulus || (question.after == nil && onlyStimulus)
        {
            for session in sessions {
                guard let answer = session.answer(question.id) else { continue }
                if let points = question.points, question.kind == .scale, let score = answer.score {
                    for (name, value) in scaleFigures(question.id, points: points, score: Double(score)) {
                        answers[session.participant, default: [:]][name] = value
                    }
                }
                if let right = AnswerTable.right(answer, question) {
                    answers[session.participant, default: [:]][recall(question.id)] = right ? 100 : 0
                }
            }
        }
        return answers
    }

    /// The same from a study folder's `answers.csv` (what `mien study` wrote of a collected study).
    /// - Throws: `.corruptData` naming the file when a scale's row cannot be read.
    package static func answers(csv path: String, stimulus: String, onlyStimulus: Bool) throws -> [String: [String:
        Double]]
    {
        let table = try CSVRecords.read(path: path)
        var answers: [String: [String: Double]] = [:]
        for (line, cells) in table.rows {
            let type = cells["type"] ?? ""
            guard let after = cells["after"], after == stimulus || (after == "end" && onlyStimulus) else { continue }
            // A recall question's right or wrong (an answers.csv written before the column has none: no recall figure).
            if let right = cells["correct"], !right.isEmpty {
                guard let participant = cells["participant"], let question = cells["question"],
                    ["0", "1"].contains(right)
                else {
                    throw MienError(
                        .corruptData, "line \(line): correct is 1 or 0 for a participant's answer", input: path)
                }
                answers[participant, default: [:]][recall(question)] = right == "1" ? 100 : 0
            }
            guard type.hasPrefix("scale ") else { continue }
            guard let participant = cells["participant"], let question = cells["question"],
                let points = Int(decimal: type.dropFirst("scale ".count))
            else { throw MienError(.corruptData, "line \(line): a scale answer without its participant", input: path) }
            guard let text = cells["score"], !text.isEmpty else { continue }
            guard let score = Double(text) else {
                throw MienError(.corruptData, "line \(line): score \(text) is not a number", input: path)
            }
            for (name, value) in scaleFigures(question, points: points, score: score) {
                answers[participant, default: [:]][name] = value
            }
        }
        return answers
    }
}
