import Foundation
import Mien

/// A participant's answer to one of the study's questions, as their session keeps it (`StudyQuestions`).
///
/// One of `score`, `choices` and `text` is set by the question's kind; none is, for an optional question the
/// participant left unanswered (so a page of answers is known to have been sent whole).
package struct StudyAnswer: Sendable, Codable, Equatable {
    /// The question's ID.
    package var question: String
    /// A scale's point (1...5, 1...7, or 0...10 for 11 points).
    package var score: Int?
    /// The options chosen, in the question's order (one for a single choice).
    package var choices: [String]?
    /// Free text, as typed (trimmed; line ends as `\n`).
    package var text: String?
    /// When the page of answers holding it was sent (ISO 8601).
    package var answered: String

    package init(question: String, score: Int? = nil, choices: [String]? = nil, text: String? = nil, answered: String) {
        self.question = question
        self.score = score
        self.choices = choices
        self.text = text
        self.answered = answered
    }

    /// Whether the question was left unanswered.
    package var isEmpty: Bool { score == nil && choices == nil && text == nil }

    /// The same answer, whenever it was sent.
    package func sameAnswer(as other: StudyAnswer) -> Bool {
        question == other.question && score == other.score && choices == other.choices && text == other.text
    }

    /// An answer as a page sends it: a JSON number, string, list of strings, or null.
    package enum Given: Sendable, Equatable, Decodable {
        case none
        case number(Double)
        case string(String)
        case strings([String])

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .none
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let string = try? container.decode(String.self) {
                self = .string(string)
            } else {
                self = .strings(try container.decode([String].self))
            }
        }
    }
}

extension StudyQuestions.Question {
    /// Code points a free-text answer may hold per character of its limit: any language's text and emoji sequences
    /// (a family emoji is 7) fit, a pile of combining marks does not.
    static let scalarsPerCharacter = 8

    /// `given` as this question's answer, sent at `answered`.
    /// - Throws: `.invalidArgument` saying what this question takes: a point outside the scale, an option it does
    ///   not have, text over its length, a kind of value it does not take, or nothing for a required question.
    package func answer(_ given: StudyAnswer.Given, answered: String) throws -> StudyAnswer {
        func refuse(_ message: String) -> MienError { MienError(.invalidArgument, "question \(id): \(message)") }
        var answer = StudyAnswer(question: id, answered: answered)
        switch (kind, given) {
        case (_, .none):
            break
        case (.scale, .number(let number)):
            guard let range, let score = Int(exactly: number), range.contains(score) else {
                throw refuse(
                    "a \(points ?? 0)-point scale takes a whole number \(range?.lowerBound ?? 1)-\(range?.upperBound ?? 0), got \(number)"
                )
            }
            answer.score = score
        case (.single, .string(let option)):
            guard options?.contains(option) == true else {
                throw refuse("'\(option.prefix(60))' is not one of its options")
            }
            answer.choices = [option]
        case (.multiple, .strings(let chosen)):
            guard Set(chosen).count == chosen.count else { throw refuse("an option is chosen twice") }
            if let unknown = chosen.first(where: { options?.contains($0) != true }) {
                throw refuse("'\(unknown.prefix(60))' is not one of its options")
            }
            // In the question's order, whatever order the page sent them in.
            answer.choices = chosen.isEmpty ? nil : (options ?? []).filter(chosen.contains)
        case (.text, .string(let typed)):
            let text = typed.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(
                in: .whitespacesAndNewlines)
            let limit = length ?? StudyQuestions.defaultTextLength
            // Characters as a person counts them, and code points too: one "character" can hold any number of
            // combining marks (issue 94: 30,001 code points passed a 500-character limit as one).
            guard text.count <= limit, text.unicodeScalars.count <= limit * Self.scalarsPerCharacter else {
                throw refuse(
                    "an answer is at most \(limit) characters (and \(limit * Self.scalarsPerCharacter) code points), got \(text.count) (\(text.unicodeScalars.count))"
                )
            }
            guard
                !text.unicodeScalars.contains(where: {
                    $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t"
                })
            else { throw refuse("the answer holds control characters") }
            answer.text = text.isEmpty ? nil : text
        default:
            let takes =
                switch kind {
                case .scale: "a whole number"
                case .single: "one option's text"
                case .multiple: "a list of options"
                case .text: "text"
                }
            throw refuse("it takes \(takes) (or null when left unanswered)")
        }
        if required, answer.isEmpty { throw refuse("it must be answered") }
        return answer
    }
}
