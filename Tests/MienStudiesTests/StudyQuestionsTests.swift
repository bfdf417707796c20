import Foundation
import MienTesting
import Testing

@testable import Mien
@testable import MienStudies

/// A collected study's questions: the file read (the bundled sample), every bad file refused naming its line, every
/// answer checked against its question, and answers.csv.
@Suite("Study questions")
struct StudyQuestionsTests {
    static let stimuli = ["astronaut-pan-zoom", "second"]

    static func parse(_ text: String) throws -> StudyQuestions {
        try StudyQuestions(parsing: text, file: "q.txt", stimuli: stimuli)
    }

    @Test func theSampleFile_readsEveryKind_withItsDefaults() throws {
        let path = SampleMedia.repositoryRoot.appendingPathComponent("Samples/advert-questions.txt").path
        let questions = try StudyQuestions(
            parsing: try String(contentsOfFile: path, encoding: .utf8), file: path, stimuli: Self.stimuli)
        #expect(questions.language == "en" && questions.submit == "Continue")
        #expect(questions.questions.map(\.id) == ["liking", "intent", "seen", "where", "comments"])
        let liking = try #require(questions.question("liking"))
        #expect(liking.kind == .scale && liking.points == 7 && liking.range == 1...7 && liking.required)
        #expect(liking.after == "astronaut-pan-zoom" && liking.anchors == ["Not at all", "Very much"])
        #expect(questions.question("intent")?.range == 0...10, "an 11-point scale runs 0-10")
        #expect(questions.question("seen")?.after == nil, "no after: at the end")
        #expect(questions.question("where")?.required == false && questions.question("where")?.kind == .multiple)
        let comments = try #require(questions.question("comments"))
        #expect(comments.kind == .text && !comments.required && comments.length == 500)
        #expect(questions.block(after: "astronaut-pan-zoom").map(\.id) == ["liking", "intent"])
        #expect(questions.block(after: nil).map(\.id) == ["seen", "where", "comments"])
        // Kept in settings.json and read back the same (a hand-edited file is checked again there).
        let settings = try CollectionSettings(
            stimuli: [CollectionTests.stimulus("astronaut-pan-zoom")], consent: "ok", questions: questions)
        let read = try JSONDecoder().decode(CollectionSettings.self, from: try settings.encoded())
        #expect(read.questions == questions)
    }

    /// Each bad file is refused naming the line that is wrong.
    @Test(arguments: [
        ("question: a\ntype: slider\ntext: x", "line 2: question a: unknown type 'slider'"),
        ("question: a\ntype: scale 7\ntext: How much?", "line 2: question a: a scale needs anchors"),
        ("question: a\ntype: scale 6\ntext: x\nanchors: a | b", "line 2: question a: a scale has 5, 7 or 11 points"),
        (
            "\n\nquestion: a\nafter: advert\ntype: text\ntext: x",
            "line 4: question a follows 'advert', which is not a stimulus"
        ),
        (
            "question: a\ntype: text\ntext: x\n\nquestion: a\ntype: text\ntext: y",
            "line 5: the question ID a is used twice (first at line 1)"
        ),
        ("question: a\ntyp: text\ntext: x", "line 2: question a: unknown field 'typ'"),
        ("language: en\nfoo: bar", "line 2: unknown field 'foo' before the first question"),
        ("question: a\ntype: single\ntext: x\noptions: one", "line 4: question a: a choice has 2-20 options, got 1"),
        ("question: a\ntype: single\ntext: x\noptions: one | one", "line 4: question a: an option is listed twice"),
        ("question: a\ntype: single\ntext: x", "line 2: question a: a choice needs 'options"),
        (
            "question: a\ntype: text\ntext: x\nanchors: a | b",
            "line 4: question a: a free-text question takes no anchors"
        ),
        ("question: a\ntype: text\ntext: x\nrequired: maybe", "line 4: question a: required is yes or no"),
        ("question: a\ntype: text\ntext: x\nlength: 99999", "line 4: question a: length is a number of characters"),
        ("question: a\ntype: text\ntext: x\ntext: y", "line 4: question a gives 'text' twice (first at line 3)"),
        ("question: a b\ntype: text\ntext: x", "line 1: question ID 'a b'"),
        ("question: a\ntext: x", "line 1: question a has no type"),
        ("question: a\ntype: text", "line 1: question a has no text"),
        (
            "question: a\ntype: scale 5\ntext: x\nanchors: low | | high",
            "line 4: question a: an empty item in 'anchors'"
        ),
        ("just a line", "line 1: expected 'field: value'"),
        ("# only comments\n", "no question"),
        ("language: english!\nquestion: a\ntype: text\ntext: x", "line 1: language 'english!'"),
    ])
    func aBadFile_isRefusedNamingItsLine(text: String, expected: String) {
        #expect {
            _ = try Self.parse(text)
        } throws: { error in
            guard let error = error as? MienError else { return false }
            return error.code == .invalidOptions && error.message.hasPrefix(expected) && error.input == "q.txt"
        }
    }

    /// A hand-edited settings.json with a question after a stimulus it does not have is refused too.
    @Test func settings_refuseQuestionsAfterAStimulusTheyDoNotHave() throws {
        let questions = try Self.parse("question: a\nafter: second\ntype: text\ntext: x")
        #expect(throws: MienError.self) {
            try CollectionSettings(stimuli: [CollectionTests.stimulus("ad")], consent: "ok", questions: questions)
        }
    }

    /// Every answer is checked against its question: in range, one of its options, within its length, the kind of
    /// value it takes, given when required.
    @Test func answers_areCheckedAgainstTheirQuestion() throws {
        let questions = try Self.parse(
            """
            question: scale
            type: scale 7
            text: Like?
            anchors: no | yes
            question: eleven
            type: scale 11
            text: Buy?
            anchors: no | yes
            question: one
            type: single
            text: Seen?
            options: Yes | No
            question: many
            type: multiple
            text: Where?
            options: TV | Web | Cinema
            required: no
            question: words
            type: text
            text: Else?
            length: 12
            """)
        func given(_ id: String, _ value: StudyAnswer.Given) throws -> StudyAnswer {
            try #require(questions.question(id)).answer(value, answered: "t")
        }
        #expect(try given("scale", .number(7)).score == 7)
        #expect(try given("eleven", .number(0)).score == 0)
        #expect(try given("one", .string("No")).choices == ["No"])
        #expect(try given("many", .strings(["Cinema", "TV"])).choices == ["TV", "Cinema"], "in the question's order")
        #expect(try given("many", .none).isEmpty && given("many", .strings([])).isEmpty)
        #expect(try given("words", .string("  fine\r\nthanks ")).text == "fine\nthanks")
        #expect(try given("words", .none).isEmpty, "free text is optional by default")
        let refused: [(String, StudyAnswer.Given, String)] = [
            ("scale", .number(8), "whole number 1-7"), ("scale", .number(0), "whole number 1-7"),
            ("scale", .number(3.5), "whole number"), ("eleven", .number(11), "0-10"),
            ("scale", .string("7"), "it takes a whole number"), ("scale", .none, "it must be answered"),
            ("one", .string("Maybe"), "not one of its options"), ("one", .strings(["Yes"]), "one option's text"),
            ("many", .strings(["TV", "TV"]), "chosen twice"), ("many", .strings(["Radio"]), "not one of its options"),
            ("words", .string("far too long here"), "at most 12 characters"),
            ("words", .string("a\u{7}b"), "control characters"),
            // Issue 94: one "character" of 30,001 code points (a letter under combining marks) is not 1 character.
            ("words", .string("a" + String(repeating: "\u{301}", count: 30_000)), "(and 96 code points)"),
        ]
        for (id, value, words) in refused {
            #expect(throws: MienError.self, "\(id) \(value)") { try given(id, value) }
            do {
                _ = try given(id, value)
            } catch let error as MienError {
                #expect(error.message.contains(words) && error.message.hasPrefix("question \(id):"), "\(error.message)")
            }
        }
    }

    /// Issue 94 item 8: a formula behind invisible characters escapes like one; direction overrides are held within
    /// their cell and line separators written as line breaks, the session keeping the text as typed.
    @Test func answersTable_neutralisesInvisibleFormulasDirectionOverridesAndLineSeparators() throws {
        for hidden in ["\u{FEFF}=1+1", "\u{301}=1+1", "\u{200B}@SUM(A1)", "\u{202E}=cmd", "-2+3", "\t=x"] {
            #expect(AnswerTable.spreadsheetSafe(hidden) == "'" + hidden, "\(hidden.unicodeScalars.map(\.value))")
        }
        for plain in ["fine", "\u{301}e", "a=b", " =1"] { #expect(AnswerTable.spreadsheetSafe(plain) == plain) }
        #expect(AnswerTable.neutralised("abc\u{202E}fed") == "\u{2068}abc\u{202E}fed\u{2069}")
        #expect(AnswerTable.neutralised("one\u{2028}two\u{2029}three") == "one\ntwo\nthree")
        let questions = try Self.parse("question: why\ntype: text\ntext: y")
        var session = ParticipantSession(
            participant: "p1", number: 1, group: nil, order: ["astronaut-pan-zoom"], tokenDigest: "d", started: "s")
        session.answers = [StudyAnswer(question: "why", text: "\u{202E}gnp.exe\u{2028}", answered: "t")]
        let text = AnswerTable.csv([session], questions: questions)
        let rows = try CSVRecords.read(text: text, source: "answers.csv").rows
        #expect(rows.count == 1 && rows.first?.cells["answer"] == "\u{2068}\u{202E}gnp.exe\n\u{2069}", "\(text)")
    }

    /// answers.csv: a row per question a participant sent, the text quoted and kept from running as a formula.
    @Test func answersTable_listsEachParticipantsAnswers_safeForASpreadsheet() throws {
        let questions = try Self.parse(
            "question: like\ntype: scale 5\ntext: x\nanchors: a | b\nquestion: why\ntype: text\ntext: y")
        var first = ParticipantSession(
            participant: "p1", number: 1, group: "A", order: ["astronaut-pan-zoom"], tokenDigest: "d", started: "s")
        first.answers = [
            StudyAnswer(question: "like", score: 4, answered: "2026-12-04T10:00:00Z"),
            StudyAnswer(question: "why", text: "=HYPERLINK(\"x\"), and more", answered: "2026-12-04T10:00:00Z"),
        ]
        var second = ParticipantSession(
            participant: "p2", number: 2, group: nil, order: ["astronaut-pan-zoom"], tokenDigest: "e", started: "s")
        second.answers = [StudyAnswer(question: "like", score: 1, answered: "2026-12-04T11:00:00Z")]
        let third = ParticipantSession(
            participant: "p3", number: 3, group: nil, order: ["astronaut-pan-zoom"], tokenDigest: "f", started: "s")
        let lines = AnswerTable.csv([second, third, first], questions: questions).split(separator: "\n")
        #expect(lines.first.map(String.init) == AnswerTable.header)
        #expect(
            lines.dropFirst().map(String.init) == [
                "p1,A,started,like,end,scale 5,4,4,2026-12-04T10:00:00Z,",
                "p1,A,started,why,end,text,,\"'=HYPERLINK(\"\"x\"\"), and more\",2026-12-04T10:00:00Z,",
                "p2,,started,like,end,scale 5,1,1,2026-12-04T11:00:00Z,",
            ])
    }
}
