import Foundation
import Mien
import MienCore

/// The fuzz target of what participants send (issue 94): bytes in, each decoder and what follows it out, and no
/// input may trap.
///
/// The first byte picks the path: a consent, a page of answers (against questions of every kind), a sequence of
/// viewing messages for one attempt (lines of the rest), a decline, a screen-out, or a recording's onsets. What a
/// decoder accepts then goes where the server sends it: into a session, `session.json`'s coding both ways, the
/// manifest's row and its reading back, the viewing rules' words and `answers.csv`. Run by libFuzzer
/// (`make fuzz-messages`, `Fuzz/MienFuzz`) and, over the committed inputs and a seeded stream of mutations, by
/// `swift test` (`ParticipantMessageFuzzTests`).
@_spi(Fuzzing) public enum ParticipantMessageFuzz {
    /// The study every input is read against: two stimuli, groups, declared attributes, questions of each kind.
    static let settings: CollectionSettings? = {
        let questions = """
            question: liking
            after: first
            type: scale 7
            text: How much did you like it?
            anchors: No | Yes

            question: intent
            type: scale 11
            text: Would you buy it?
            anchors: No | Yes

            question: seen
            type: single
            text: Seen before?
            options: Yes | No

            question: where
            type: multiple
            text: Where?
            options: TV | Web | Cinema
            required: no

            question: comments
            type: text
            text: Anything else?
            length: 500
            """
        do {
            var settings = try CollectionSettings(
                stimuli: [
                    .init(name: "first", file: "first.mp4", sha256: String(repeating: "0", count: 64), duration: 20),
                    .init(name: "second", file: "second.mp4", sha256: String(repeating: "0", count: 64), duration: 15),
                ], groups: ["A", "B"], consent: "ok", skippableAfter: 5,
                questions: try StudyQuestions(parsing: questions, file: "questions.txt", stimuli: ["first", "second"]))
            settings.attributes = [try PanelAttribute(parsing: "age=18-24,25-34,45+")]
            return settings
        } catch {
            return nil
        }
    }()

    /// Runs one input.
    public static func run(_ bytes: [UInt8]) {
        guard let settings, let selector = bytes.first else { return }
        let body = Data(bytes.dropFirst())
        var session = ParticipantSession(
            participant: "p1", number: 1, group: "A", order: ["first", "second"], tokenDigest: "t",
            started: "2026-12-06T10:00:00Z")
        switch selector % 6 {
        case 0:
            guard let consent = ParticipantMessage.decode(ParticipantMessage.Consent.self, from: body) else { return }
            if let id = consent.participant, CollectionSettings.isParticipantID(id) { session.participant = id }
            session.attributes = PanelAttribute.kept(consent.attributes, declared: settings.attributes)
            _ = settings.fieldwork.linkedGroup(consent.group, signature: consent.groupSignature)
        case 1:
            guard let page = ParticipantMessage.decode(ParticipantMessage.AnswersPage.self, from: body),
                let questions = settings.questions
            else { return }
            var answers: [StudyAnswer] = []
            for (id, given) in page.answers {
                guard let question = questions.questions.first(where: { $0.id == id }) else { continue }
                do {
                    answers.append(try question.answer(given, answered: "2026-12-06T10:01:00Z"))
                } catch {
                    continue  // refused, saying why: nothing kept
                }
            }
            session.answers = answers
            _ = AnswerTable.csv([session], questions: questions)
        case 2:
            let stimulus = settings.stimuli[Int(truncatingIfNeeded: body.first ?? 0) % settings.stimuli.count]
            var log = ViewingLog()
            for line in body.dropFirst().split(separator: UInt8(ascii: "\n")) {
                _ = log.receive(
                    String(decoding: line, as: UTF8.self), duration: stimulus.duration,
                    skippableAfter: settings.skippableAfter)
            }
            var progress = ParticipantSession.StimulusProgress()
            progress.ended = true
            progress.coverage = 1
            progress.viewing = log.kept
            session.stimuli[stimulus.name] = progress
            session.state = .complete
            _ = session.viewingBroken(settings)
            if let figures = log.kept?.figures(duration: stimulus.duration) {
                _ = ViewingRules.standard.broken(by: figures, duration: stimulus.duration)
                var cells: [String: String] = [:]
                for (column, cell) in zip(ViewingFigures.columns, figures.cells) { cells[column] = cell }
                _ = ViewingFigures(cells: cells)?.cells
            }
        case 3:
            _ = ParticipantMessage.decode(ParticipantMessage.Decline.self, from: body)
            return
        case 4:
            guard let screenout = ParticipantMessage.decode(ParticipantMessage.Screenout.self, from: body) else {
                return
            }
            _ = ParticipantSession.Reason(rawValue: screenout.reason)
            return
        default:
            guard let onsets = ParticipantMessage.decode(ParticipantMessage.RecordingOnsets.self, from: body),
                onsets.inRange
            else { return }
            for (name, onset) in onsets.onsets where session.order.contains(name) {
                session.stimuli[name, default: .init()].recordingOnset = onset
                _ = StudyRecordingReader.milliseconds(onset)
            }
        }
        // What the server does with a session next: keep it (session.json), read it back, write its manifest rows,
        // which `mien study` and the dashboard read. A failure to decode is a finding, not a crash: it stops here.
        do {
            let data = try JSONEncoder().encode(session)
            _ = try JSONDecoder().decode(ParticipantSession.self, from: data)
            let manifests = CollectionFolder.manifests([session], settings: settings)
            for text in [manifests.live, manifests.recorded].compactMap({ $0 }) {
                _ = try StudyManifest(text: text, source: "manifest")
            }
        } catch {
            return
        }
    }
}
