import Foundation
import Mien

/// The questions file `mien study init --questions FILE` reads: plain text, one `field: value` a line.
///
/// ```
/// # Lines starting with # are comments; blank lines are ignored.
/// language: en                       # optional, before the first question: the questions' language
/// submit: Continue                   # optional: the button's label
///
/// question: liking                   # starts a question: its ID
/// after: advert                      # the stimulus it follows (default: end, after every stimulus)
/// type: scale 7                      # scale 5, scale 7, scale 11, single, multiple or text
/// text: How much did you like the advert?
/// anchors: Not at all | Very much    # a scale's lowest and highest point (a middle may go between)
/// required: yes                      # default yes (no for text)
/// ```
/// A choice gives `options: A | B | C` instead of anchors; free text may give `length: 500` (characters); a single
/// choice may give `correct: B`, its right option (a recall question: `kpis.csv` gives the share who chose it).
extension StudyQuestions {
    /// The fields a question may give.
    static let questionFields = ["type", "text", "anchors", "options", "after", "required", "length", "correct"]
    /// The fields the file may give before its first question.
    static let fileFields = ["language", "submit", "missing"]

    /// Reads a questions file's text.
    /// - Parameters:
    ///   - file: its path, named in errors.
    ///   - stimuli: the study's stimuli, by name (what `after:` may name).
    /// - Throws: `.invalidOptions` naming the line (and the question) that is wrong: an unknown field or type, a
    ///   scale without anchors, a question after a stimulus that does not exist, a duplicate ID, ...
    package init(parsing text: String, file: String, stimuli: [String]) throws {
        func refuse(_ line: Int, _ message: String) -> MienError {
            MienError(.invalidOptions, "line \(line): \(message)", input: file)
        }
        var header: [String: (value: String, line: Int)] = [:]
        var drafts: [Draft] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw refuse(number, "expected 'field: value', got '\(line.prefix(60))'")
            }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if key == "question" {
                guard CollectionSettings.isName(value) else {
                    throw refuse(number, "question ID '\(value)': use 1-64 letters, digits, '_' or '-'")
                }
                if let first = drafts.first(where: { $0.id == value }) {
                    throw refuse(number, "the question ID \(value) is used twice (first at line \(first.line))")
                }
                drafts.append(Draft(id: value, line: number))
                continue
            }
            guard var draft = drafts.popLast() else {
                guard Self.fileFields.contains(key) else {
                    throw refuse(
                        number,
                        "unknown field '\(key)' before the first question (\(Self.fileFields.joined(separator: ", ")); a question starts with 'question: ID')"
                    )
                }
                if let first = header[key] {
                    throw refuse(number, "'\(key)' is given twice (first at line \(first.line))")
                }
                header[key] = (value, number)
                continue
            }
            guard Self.questionFields.contains(key) else {
                throw refuse(
                    number,
                    "question \(draft.id): unknown field '\(key)' (\(Self.questionFields.joined(separator: ", ")))")
            }
            if let first = draft.fields[key] {
                throw refuse(number, "question \(draft.id) gives '\(key)' twice (first at line \(first.line))")
            }
            guard !value.isEmpty else { throw refuse(number, "question \(draft.id): '\(key)' is empty") }
            draft.fields[key] = (value, number)
            drafts.append(draft)
        }
        if let language = header["language"], !Self.isLanguageTag(language.value) {
            throw refuse(language.line, "language '\(language.value)': use a BCP 47 tag such as en, de or pt-BR")
        }
        self.init(
            language: header["language"]?.value, submit: header["submit"]?.value, missing: header["missing"]?.value,
            questions: try drafts.map { try $0.question(stimuli: stimuli, refuse: refuse) })
        guard !questions.isEmpty else {
            throw MienError(.invalidOptions, "no question (each starts with a line 'question: ID')", input: file)
        }
        guard questions.count <= Self.maximumCount else {
            throw MienError(
                .invalidOptions, "a study asks at most \(Self.maximumCount) questions, the file has \(questions.count)",
                input: file)
        }
        do {
            try validate(stimuli: stimuli)
        } catch let error as MienError {
            throw MienError(error.code, error.message, input: file)
        }
    }

    /// A question as read so far: its ID, the line it starts at, and each field with its line.
    private struct Draft {
        var id: String
        var line: Int
        var fields: [String: (value: String, line: Int)] = [:]

        func question(stimuli: [String], refuse: (Int, String) -> MienError) throws -> Question {
            let named = "question \(id)"
            func list(_ key: String) throws -> [String]? {
                guard let field = fields[key] else { return nil }
                let items = field.value.split(separator: "|", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard items.allSatisfy({ !$0.isEmpty }) else {
                    throw refuse(field.line, "\(named): an empty item in '\(key)' (items are separated by '|')")
                }
                return items
            }
            guard let type = fields["type"] else {
                throw refuse(line, "\(named) has no type (scale 5, scale 7, scale 11, single, multiple or text)")
            }
            let words = type.value.lowercased().split(separator: " ", omittingEmptySubsequences: true)
            let kind: Kind
            var points: Int?
            switch words.first.map(String.init) {
            case "scale":
                guard words.count == 2, let count = Int(decimal: words[1]), [5, 7, 11].contains(count) else {
                    throw refuse(
                        type.line, "\(named): a scale has 5, 7 or 11 points ('scale 5', 'scale 7', 'scale 11')")
                }
                (kind, points) = (.scale, count)
            case .some(let word) where words.count == 1 && ["single", "multiple", "text"].contains(word):
                kind = Kind(rawValue: word) ?? .text
            default:
                throw refuse(
                    type.line,
                    "\(named): unknown type '\(type.value)' (scale 5, scale 7, scale 11, single, multiple or text)")
            }
            guard let text = fields["text"]?.value else { throw refuse(line, "\(named) has no text") }
            let anchors = try list("anchors")
            let options = try list("options")
            switch kind {
            case .scale:
                guard let anchors else {
                    throw refuse(
                        type.line,
                        "\(named): a scale needs anchors ('anchors: LOWEST | HIGHEST', a middle may go between)")
                }
                guard (2...3).contains(anchors.count) else {
                    throw refuse(
                        fields["anchors"]?.line ?? line,
                        "\(named): a scale's anchors are its lowest and highest point (and a middle), got \(anchors.count)"
                    )
                }
                if let field = fields["options"] ?? fields["length"] {
                    throw refuse(field.line, "\(named): a scale takes anchors, not options or a length")
                }
            case .single, .multiple:
                guard let options else { throw refuse(type.line, "\(named): a choice needs 'options: A | B | ...'") }
                guard (2...20).contains(options.count) else {
                    throw refuse(
                        fields["options"]?.line ?? line, "\(named): a choice has 2-20 options, got \(options.count)")
                }
                guard Set(options).count == options.count else {
                    throw refuse(fields["options"]?.line ?? line, "\(named): an option is listed twice")
                }
                if let field = fields["anchors"] ?? fields["length"] {
                    throw refuse(field.line, "\(named): a choice takes options, not anchors or a length")
                }
            case .text:
                if let field = fields["anchors"] ?? fields["options"] {
                    throw refuse(field.line, "\(named): a free-text question takes no anchors or options")
                }
            }
            var after: String?
            if let field = fields["after"], field.value != "end" {
                guard stimuli.contains(field.value) else {
                    throw refuse(
                        field.line,
                        "\(named) follows '\(field.value)', which is not a stimulus of the study (\(stimuli.joined(separator: ", ")); or end)"
                    )
                }
                after = field.value
            }
            var required = kind != .text
            if let field = fields["required"] {
                switch field.value.lowercased() {
                case "yes", "true": required = true
                case "no", "false": required = false
                default: throw refuse(field.line, "\(named): required is yes or no, got '\(field.value)'")
                }
            }
            var length: Int?
            if let field = fields["length"] {
                guard let value = Int(decimal: field.value), (1...StudyQuestions.maximumTextLength).contains(value)
                else {
                    throw refuse(
                        field.line,
                        "\(named): length is a number of characters, 1-\(StudyQuestions.maximumTextLength), got '\(field.value)'"
                    )
                }
                length = value
            }
            var correct: String?
            if let field = fields["correct"] {
                guard kind == .single else {
                    throw refuse(field.line, "\(named): only a single choice has a correct option (a recall question)")
                }
                guard options?.contains(field.value) == true else {
                    throw refuse(
                        field.line,
                        "\(named): the correct option '\(field.value)' is not one of its options (\((options ?? []).joined(separator: " | ")))"
                    )
                }
                correct = field.value
            }
            return Question(
                id: id, after: after, kind: kind, text: text, points: points, anchors: anchors, options: options,
                required: required, length: kind == .text ? length ?? StudyQuestions.defaultTextLength : nil,
                correct: correct)
        }
    }
}
