import Foundation

/// `answers.csv`: every participant's answers to a collected study's questions.
///
/// A row per participant and question answered or left unanswered (the page was sent), in the participants' order
/// of consent and the file's order of questions. Written by `mien study` on a collected study, `mien study export` and the dashboard.
///
/// Columns: `participant`, `group`, `state` (the session's: `complete`, `incomplete`, ...), `question`, `after` (the
/// stimulus it follows, or `end`), `type` (`scale 7`, `single`, `multiple`, `text`), `score` (a scale's point),
/// `answer` (a scale's point, the option chosen, the options chosen joined by ` | `, or the text), `answered` (when
/// its page was sent, ISO 8601). A question left unanswered has empty `score` and `answer`.
package enum AnswerTable {
    package static let header = "participant,group,state,question,after,type,score,answer,answered"

    package static func csv(_ sessions: [ParticipantSession], questions: StudyQuestions) -> String {
        var lines = [header]
        for session in sessions.sorted(by: { $0.number < $1.number }) {
            for question in questions.questions {
                guard let answer = session.answer(question.id) else { continue }
                let shown =
                    answer.score.map(String.init) ?? answer.choices?.joined(separator: " | ") ?? answer.text ?? ""
                lines.append(
                    [
                        session.participant, session.group ?? "", session.state.rawValue, question.id,
                        question.after ?? "end", question.typeName, answer.score.map(String.init) ?? "",
                        spreadsheetSafe(shown), answer.answered,
                    ].map(ResultTable.quoted).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A participant's text as a spreadsheet shows it, not runs it.
    ///
    /// A cell that starts with `=`, `+`, `-`, `@` or a tab is a formula to Excel and LibreOffice (OWASP's CSV injection), so it gets a leading `'`. Session files keep
    /// the text as typed.
    static func spreadsheetSafe(_ text: String) -> String {
        guard let first = text.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) else { return text }
        return "'" + text
    }
}
