import Foundation
import Mien

/// The questions a collected study asks (`mien study init --questions FILE`): each after a named stimulus or at the
/// end, in the study's language; kept in `settings.json` and shown by the participant page after the stimulus
/// they follow, in this participant's order of stimuli.
///
/// The file's format is `StudyQuestions(parsing:file:stimuli:)`'s (docs/studies.md, "Questions").
package struct StudyQuestions: Sendable, Codable, Equatable {
    /// The most questions a study may ask.
    package static let maximumCount = 50
    /// The longest free-text answer a question may allow, in characters.
    package static let maximumTextLength = 5000
    /// A free-text answer's limit when the file gives none, in characters.
    package static let defaultTextLength = 1000

    /// What kind of answer a question takes.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// A Likert-type scale of `points` (5 or 7: points 1...points; 11: points 0...10), anchored at its ends.
        case scale
        /// One of `options`.
        case single
        /// Any of `options` (none counts as unanswered).
        case multiple
        /// Free text of at most `length` characters.
        case text
    }

    /// One question.
    package struct Question: Sendable, Codable, Equatable {
        /// Its ID in the answers (`answers.csv`'s `question`): letters, digits, `_` and `-`.
        package var id: String
        /// The stimulus it follows; nil: at the end, after every stimulus.
        package var after: String?
        package var kind: Kind
        /// The question as the participant reads it.
        package var text: String
        /// A scale's points: 5, 7 or 11.
        package var points: Int?
        /// A scale's labels: its lowest and highest point, or lowest, middle and highest.
        package var anchors: [String]?
        /// A choice's options, in the order shown.
        package var options: [String]?
        /// Whether it must be answered before the participant goes on.
        package var required: Bool
        /// A free-text answer's longest length, in characters.
        package var length: Int?
        /// A single choice's right option (`correct:`): the question is a recall question, and `kpis.csv` gives
        /// the share who chose it.
        package var correct: String? = nil

        /// The scale's lowest and highest point (0...10 for 11 points, else 1...points); nil for other kinds.
        package var range: ClosedRange<Int>? {
            guard kind == .scale, let points else { return nil }
            return points == 11 ? 0...10 : 1...points
        }

        /// The kind as the file writes it (`scale 7`, `single`, ...), for `answers.csv`'s `type`.
        package var typeName: String { kind == .scale ? "scale \(points ?? 0)" : kind.rawValue }
    }

    /// The questions' language, a BCP 47 tag (`en`, `de-CH`).
    ///
    /// The page marks them with it, so a screen reader reads them in it. Nil: the page's own (English).
    package var language: String?
    /// The label of the button that sends a page of answers (default "Continue").
    package var submit: String?
    /// What the page says beside a required question left unanswered (default "Please answer this question.").
    package var missing: String?
    package var questions: [Question]

    package init(language: String? = nil, submit: String? = nil, missing: String? = nil, questions: [Question]) {
        self.language = language
        self.submit = submit
        self.missing = missing
        self.questions = questions
    }

    /// The questions asked after `stimulus` (nil: at the end), in the file's order.
    package func block(after stimulus: String?) -> [Question] { questions.filter { $0.after == stimulus } }

    /// The question with this ID.
    package func question(_ id: String) -> Question? { questions.first { $0.id == id } }

    /// Checks the questions against the study's stimuli (a hand-edited `settings.json` is read through it too).
    /// - Throws: `.invalidOptions` naming the question and what is wrong.
    package func validate(stimuli: [String]) throws {
        func refuse(_ message: String) -> MienError { MienError(.invalidOptions, message) }
        guard !questions.isEmpty else { throw refuse("a questions file needs at least one question") }
        guard questions.count <= Self.maximumCount else {
            throw refuse("a study asks at most \(Self.maximumCount) questions, got \(questions.count)")
        }
        if let language, !Self.isLanguageTag(language) {
            throw refuse("language '\(language)': use a BCP 47 tag such as en, de or pt-BR")
        }
        var seen = Set<String>()
        for question in questions {
            let named = "question \(question.id)"
            guard CollectionSettings.isName(question.id) else {
                throw refuse("question ID '\(question.id)': use 1-64 letters, digits, '_' or '-'")
            }
            guard seen.insert(question.id).inserted else { throw refuse("two questions share the ID \(question.id)") }
            if let after = question.after, !stimuli.contains(after) {
                throw refuse(
                    "\(named): it follows '\(after)', which is not a stimulus of the study (\(stimuli.joined(separator: ", ")))"
                )
            }
            guard !question.text.trimmingCharacters(in: .whitespaces).isEmpty, question.text.count <= 1000 else {
                throw refuse("\(named): its text must be 1-1000 characters")
            }
            switch question.kind {
            case .scale:
                guard question.correct == nil else {
                    throw refuse("\(named): only a single choice has a correct option (a recall question)")
                }
                guard let points = question.points, [5, 7, 11].contains(points) else {
                    throw refuse("\(named): a scale has 5, 7 or 11 points")
                }
                guard let anchors = question.anchors, (2...3).contains(anchors.count),
                    anchors.allSatisfy({ !$0.isEmpty && $0.count <= 200 })
                else {
                    throw refuse(
                        "\(named): a scale needs anchors: its lowest and highest point's labels (and a middle)")
                }
                guard question.options == nil, question.length == nil else {
                    throw refuse("\(named): a scale takes anchors, not options or a length")
                }
            case .single, .multiple:
                guard let options = question.options, (2...20).contains(options.count),
                    options.allSatisfy({ !$0.isEmpty && $0.count <= 200 })
                else { throw refuse("\(named): a choice needs 2-20 options of 1-200 characters") }
                guard Set(options).count == options.count else { throw refuse("\(named): an option is listed twice") }
                guard question.points == nil, question.anchors == nil, question.length == nil else {
                    throw refuse("\(named): a choice takes options, not points, anchors or a length")
                }
                if let correct = question.correct {
                    guard question.kind == .single else {
                        throw refuse("\(named): only a single choice has a correct option (a recall question)")
                    }
                    guard options.contains(correct) else {
                        throw refuse(
                            "\(named): the correct option '\(correct)' is not one of its options (\(options.joined(separator: " | ")))"
                        )
                    }
                }
            case .text:
                guard question.points == nil, question.anchors == nil, question.options == nil, question.correct == nil
                else {
                    throw refuse("\(named): a free-text question takes a length, not points, anchors or options")
                }
                if let length = question.length, !(1...Self.maximumTextLength).contains(length) {
                    throw refuse("\(named): a free-text length is 1-\(Self.maximumTextLength) characters")
                }
            }
        }
    }

    /// Whether `tag` looks like a BCP 47 language tag: a 2-3 letter language, then subtags of 1-8 letters or
    /// digits, joined by `-`.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}
