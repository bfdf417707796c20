import Foundation
import Mien

/// `answers.csv`: every participant's answers to a collected study's questions.
///
/// A row per participant and question answered or left unanswered (the page was sent), in the participants' order
/// of consent and the file's order of questions. Written by `mien study` on a collected study, `mien study export` and the dashboard.
///
/// Columns: `participant`, `group`, `state` (the session's: `complete`, `incomplete`, ...), `question`, `after` (the
/// stimulus it follows, or `end`), `type` (`scale 7`, `single`, `multiple`, `text`), `score` (a scale's point),
/// `answer` (a scale's point, the option chosen, the options chosen joined by ` | `, or the text), `answered` (when
/// its page was sent, ISO 8601), `correct` (a recall question's: 1 for its right option, 0 for another, empty
/// otherwise; issue 98: norms keep the share right). A question left unanswered has empty `score`, `answer` and
/// `correct`.
package enum AnswerTable {
    package static let header = "participant,group,state,question,after,type,score,answer,answered,correct"

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
                        spreadsheetSafe(answer.text == nil ? shown : neutralised(shown)), answer.answered,
                        right(answer, question).map { $0 ? "1" : "0" } ?? "",
                    ].map(ResultTable.quoted).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether `answer` is a recall question's right option; nil when the question has none or was left unanswered.
    package static func right(_ answer: StudyAnswer, _ question: StudyQuestions.Question) -> Bool? {
        guard let correct = question.correct, let choices = answer.choices, !choices.isEmpty else { return nil }
        return choices == [correct]
    }

    /// A participant's text as a spreadsheet shows it, not runs it.
    ///
    /// A cell that starts with `=`, `+`, `-`, `@` or a tab is a formula to Excel and LibreOffice (OWASP's CSV
    /// injection), so it gets a leading `'`; so does one where such a character follows only invisible ones (a
    /// byte-order mark, a combining mark, a zero-width or direction mark: issue 94 found `\u{FEFF}=` and `\u{301}=`
    /// passing as text). Session files keep the text as typed.
    static func spreadsheetSafe(_ text: String) -> String {
        let visible = text.unicodeScalars.first { scalar in
            switch scalar.properties.generalCategory {
            case .format, .nonspacingMark, .spacingMark, .enclosingMark, .control: scalar == "\t" || scalar == "\r"
            default: true
            }
        }
        guard let visible, ["=", "+", "-", "@", "\t", "\r"].contains(visible) else { return text }
        return "'" + text
    }

    /// Free text as a cell keeps it, made harmless to what shows it.
    ///
    /// Direction controls (a right-to-left override
    /// that would reverse the cells after it) held inside an isolate that ends with the cell, and line and
    /// paragraph separators (U+2028, U+2029, which some readers take as the end of a row) written as line breaks
    /// within the quoted cell. The session keeps the text as typed.
    static func neutralised(_ text: String) -> String {
        let lines = text.replacingOccurrences(of: "\u{2028}", with: "\n").replacingOccurrences(
            of: "\u{2029}", with: "\n")
        let directional = lines.unicodeScalars.contains {
            (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }
        // U+2068 FIRST STRONG ISOLATE ... U+2069 POP DIRECTIONAL ISOLATE: every embedding or override opened
        // inside ends at the isolate's end (Unicode's bidirectional algorithm, UAX #9).
        return directional ? "\u{2068}" + lines + "\u{2069}" : lines
    }
}
