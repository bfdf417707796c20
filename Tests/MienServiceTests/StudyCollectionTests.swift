import Foundation
import Hummingbird
import HummingbirdTesting
import Mien
import MienTesting
import NIOCore
import Synchronization
import Testing

@testable import MienService

/// A collected study as the service keeps it: consent, groups and orders, tokens, re-entry, expiry, the cap,
/// completion only for what was measured, recovery after a kill, a failing disk, erasure.
@Suite("mien serve --studies", .serialized)
struct StudyCollectionTests {
    /// A studies folder holding one study `ad` with two stimuli (copies of the sample clip, 3 s each).
    static func studies(
        groups: [String] = ["A", "B"], order: CollectionSettings.Order = .fixed, maximum: Int? = nil,
        fieldwork: CollectionSettings.Fieldwork = .init()
    ) throws -> URL {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("mien-studies-\(UUID().uuidString)")
        let folder = CollectionFolder(parent.appendingPathComponent("ad"))
        try FileManager.default.createDirectory(at: folder.stimuli, withIntermediateDirectories: true)
        let clip = try Data(
            contentsOf: URL(
                fileURLWithPath: SampleMedia.repositoryRoot.appendingPathComponent("Samples/astronaut-pan-zoom.mp4")
                    .path))
        var stimuli: [CollectionSettings.Stimulus] = []
        for name in ["first", "second"] {
            try clip.write(to: folder.stimuli.appendingPathComponent("\(name).mp4"))
            stimuli.append(.init(name: name, file: "\(name).mp4", sha256: ModelStore.sha256(clip), duration: 3))
        }
        let settings = try CollectionSettings(
            stimuli: stimuli, groups: groups, order: order, consent: "ok", maximumParticipants: maximum,
            fieldwork: fieldwork)
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        return parent
    }

    static func refusal(_ status: HTTPResponse.Status, code: String? = nil, _ work: () throws -> Void) {
        #expect {
            try work()
        } throws: { error in
            guard let refusal = error as? ServiceRefusal else { return false }
            return refusal.status == status && (code == nil || refusal.code == code)
        }
    }

    /// A socket as the routes register one (nothing to close in these tests).
    static func socket(_ kind: String) -> CollectedStudy.OpenSocket {
        .init(kind: kind, opened: Date(), progress: nil, close: { _ in })
    }

    /// Progress of a stimulus measured at `rate` frames per second from `from` to `to` seconds.
    static func measured(from: Double = 0, to: Double, rate: Double = 10, ended: Bool, duration: Double = 3)
        -> ParticipantSession.StimulusProgress
    {
        var time = MeasuredTime(duration: duration, span: CollectionSettings.Fieldwork().frameSpan)
        var progress = ParticipantSession.StimulusProgress()
        var t = from
        while t <= to + 1e-9 {
            time.add(t)
            progress.frames += 1
            progress.analysed += 1
            progress.lastTime = t
            t += 1 / rate
        }
        progress.coverage = time.share
        progress.ended = ended
        return progress
    }

    /// Watches `stimulus` for `id` as a socket would, ending with `end`.
    @discardableResult
    static func watch(
        _ study: CollectedStudy, _ id: String, _ stimulus: String, progress: ParticipantSession.StimulusProgress,
        end: CollectedStudy.SocketEnd = .ended
    ) throws -> CollectedStudy.StimulusOutcome {
        let socket = Self.socket(stimulus)
        let (found, _) = try study.beginStimulus(id, stimulus: stimulus, socket: socket)
        return study.endStimulus(id, stimulus: found, progress: progress, end: end, socket: socket.id)
    }

    @Test func consent_balancesWatchersOnly_rotatesOrders_andRefusesBadIDsAndAFullStudy() throws {
        let parent = try Self.studies(order: .counterbalanced, maximum: 2)
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        let first = try study.admit(participant: "p1", group: nil)
        #expect(first.group == "A" && first.order == ["first", "second"])
        // p1 has not started watching: a consent that never reached a stimulus does not count for balance.
        let second = try study.admit(participant: "p2", group: nil)
        #expect(second.group == "A" && second.order == ["second", "first"])
        try Self.watch(study, "p1", "first", progress: Self.measured(to: 3, ended: true))
        #expect(try study.admit(participant: "p3", group: nil).group == "B", "p1 watches in A: the fewest is B")
        Self.refusal(.badRequest) { _ = try study.admit(participant: "../p9", group: nil) }
        Self.refusal(.badRequest) { _ = try study.admit(participant: "p9", group: "C") }
        // The cap counts those who started watching (2): consents are still taken, a third watcher is not.
        try Self.watch(study, "p2", "second", progress: Self.measured(to: 3, ended: true))
        Self.refusal(.forbidden, code: "studyFull") { _ = try study.admit(participant: "p9", group: nil) }
        Self.refusal(.forbidden, code: "studyFull") {
            _ = try study.beginStimulus("p3", stimulus: "first", socket: Self.socket("first"))
        }
        #expect(study.session("p3")?.state == .screenedOut && study.session("p3")?.reasonCode == .studyFull)
        // A token is its participant's, and only this study's; the folder keeps its digest only.
        #expect(try study.participant(token: first.token) == "p1")
        Self.refusal(.unauthorized) { _ = try study.participant(token: "not-a-token") }
        let stored = try String(contentsOf: study.folder.session("p1"), encoding: .utf8)
        #expect(!stored.contains(first.token) && stored.contains(CollectedStudy.digest(first.token)))
    }

    @Test func reentry_goesOnFromTheInterruptedStimulus_keepingItsPartialDataApart() throws {
        let clock = ManualClock()
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"), clock: clock.read)
        let consent = try study.admit(participant: "p1", group: "A")
        try Self.watch(study, "p1", "first", progress: Self.measured(to: 3, ended: true))
        // A reload halfway through the second stimulus: its socket closes, the participant is incomplete.
        let files = study.folder.files(participant: "p1", stimulus: "second")
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: files.jsonl ?? ""))
        try Self.watch(study, "p1", "second", progress: Self.measured(to: 1.4, ended: false), end: .left)
        #expect(study.session("p1")?.state == .incomplete && study.session("p1")?.reasonCode == .left)
        // The page kept its token: it comes back, and goes on with the second stimulus.
        clock.advance(minutes: 5)
        let back = try study.resume(token: consent.token)
        #expect(back.watched == ["first"] && back.state == "started")
        let outcome = try Self.watch(study, "p1", "second", progress: Self.measured(to: 3, ended: true))
        #expect(outcome.enough)
        let session = try #require(study.session("p1"))
        #expect(session.reentries == 1 && session.attempts.count == 1 && session.attempts.first?.number == 1)
        #expect(session.attempts.first?.progress.coverage ?? 1 < 0.6)
        let apart = study.folder.files(participant: "p1", stimulus: "second.attempt1")
        #expect(FileManager.default.fileExists(atPath: apart.jsonl ?? ""), "the first attempt's results kept apart")
        let (_, code) = try study.complete("p1")
        #expect(code.count == 8 && study.session("p1")?.code == code)
        // Completed: the same ID cannot start again, and the answer does not say why.
        Self.refusal(.conflict, code: "cannotTakePart") { _ = try study.admit(participant: "p1", group: nil) }
        // Coming back with the token after completing shows the code again.
        #expect(try study.resume(token: consent.token).code == code)
    }

    @Test func reentry_byConsentWithinTheWindowOnly_andAnUnusedConsentExpiresFreeingItsID() throws {
        let clock = ManualClock()
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"), clock: clock.read)
        let old = try study.admit(participant: "p1", group: "B")
        try Self.watch(study, "p1", "first", progress: Self.measured(to: 1, ended: false), end: .left)
        // A closed tab (the token lost): consent again with the same ID within the window goes on.
        clock.advance(minutes: 30)
        let again = try study.admit(participant: "p1", group: "A")
        #expect(again.group == "B", "a participant keeps their group")
        Self.refusal(.unauthorized) { _ = try study.participant(token: old.token) }
        try Self.watch(study, "p1", "first", progress: Self.measured(to: 0.5, ended: false), end: .left)
        clock.advance(minutes: 61)
        Self.refusal(.conflict, code: "cannotTakePart") { _ = try study.admit(participant: "p1", group: nil) }
        // A probe with someone's ID registers it; it expires unused and the owner can take part.
        _ = try study.admit(participant: "owner", group: nil)
        clock.advance(minutes: 16)
        study.expireConsents()
        #expect(study.session("owner") == nil)
        #expect(!FileManager.default.fileExists(atPath: study.folder.participant("owner").path))
        #expect(try study.admit(participant: "owner", group: nil).participant == "owner")
    }

    @Test func completion_needsEveryStimulusMeasured_notJustEnded() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try study.admit(participant: "empty", group: nil)
        // `end` with no frame, then `complete`: no code.
        let empty = try Self.watch(study, "empty", "first", progress: .init().ended(true))
        #expect(!empty.enough && empty.attemptsLeft == 2)
        // Frames at 0 and 2.9 s of a 3 s stimulus measure 0.5 s of it, not all of it.
        _ = try study.admit(participant: "sparse", group: nil)
        var sparse = ParticipantSession.StimulusProgress()
        var time = MeasuredTime(duration: 3, span: 0.4)
        for t in [0, 2.9] { time.add(t) }
        sparse.coverage = time.share
        sparse.frames = 2
        sparse.analysed = 2
        sparse.ended = true
        #expect(abs(sparse.coverage - 0.5 / 3) < 0.01, "0-0.2 s and 2.7-3 s")
        let outcome = try Self.watch(study, "sparse", "first", progress: sparse)
        #expect(!outcome.enough)
        try Self.watch(study, "sparse", "second", progress: Self.measured(to: 3, ended: true))
        Self.refusal(.conflict, code: "tooLittleMeasured") { _ = try study.complete("sparse") }
        // The attempts allowed used up: screened out, with the panel's screen-out link.
        for _ in 0..<2 { try Self.watch(study, "sparse", "first", progress: sparse) }
        #expect(study.session("sparse")?.state == .screenedOut)
        #expect(study.session("sparse")?.reasonCode == .tooLittleMeasured)
        Self.refusal(.conflict) { _ = try study.complete("sparse") }
    }

    @Test func aKilledServersPartialResults_areRecoveredAtStart_withAManifestRow() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        var study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try study.admit(participant: "p1", group: nil)
        _ = try study.beginStimulus("p1", stimulus: "first", socket: Self.socket("first"))
        // What a killed server leaves: the JSON Lines' temporary file, its last line torn.
        let jsonl = try #require(study.folder.files(participant: "p1", stimulus: "first").jsonl)
        let leftover = URL(fileURLWithPath: jsonl).deletingLastPathComponent()
            .appendingPathComponent(".first.jsonl.partial-99999-1")
        let writer = JSONLinesWriter(stream: { _ in })
        var text = Data()
        for index in 0..<15 {
            text += try writer.line(DetectorResult(frameIndex: index, timestamp: Double(index) / 10, faces: [:]))
        }
        text += Data(#"{"frameIndex":15,"timesta"#.utf8)
        try text.write(to: leftover)
        study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        let session = try #require(study.session("p1"))
        #expect(session.state == .incomplete && session.reasonCode == .serverStopped)
        #expect(session.stimuli["first"]?.analysed == 15)
        #expect(abs((session.stimuli["first"]?.coverage ?? 0) - 1.6 / 3) < 0.01, "0 to 1.4 s, and 0.2 s after")
        #expect(FileManager.default.fileExists(atPath: jsonl) && !FileManager.default.fileExists(atPath: leftover.path))
        #expect(try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n").count == 15)
        let manifest = try StudyManifest(path: study.folder.manifest.path)
        #expect(manifest.rows.map(\.participant) == ["p1"] && manifest.rows.first?.status == "incomplete")
    }

    @Test func aFailingDisk_leavesNoGhostConsent_andGivesNoCode() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try study.admit(participant: "p1", group: nil)
        try Self.watch(study, "p1", "first", progress: Self.measured(to: 3, ended: true))
        try Self.watch(study, "p1", "second", progress: Self.measured(to: 3, ended: true))
        // The participant's session file cannot be replaced (root ignores permissions: a folder in its way).
        let session = study.folder.session("p1")
        try FileManager.default.removeItem(at: session)
        try FileManager.default.createDirectory(at: session, withIntermediateDirectories: true)
        Self.refusal(.serviceUnavailable, code: "notSaved") { _ = try study.complete("p1") }
        #expect(study.session("p1")?.state == .started && study.session("p1")?.code == nil)
        // No participant folder can be made: consent answers 503 without a path, and leaves no session.
        try FileManager.default.removeItem(at: study.folder.participants)
        try Data().write(to: study.folder.participants)
        #expect {
            _ = try study.admit(participant: "p2", group: nil)
        } throws: { error in
            let refusal = error as? ServiceRefusal
            return refusal?.status == .serviceUnavailable && refusal?.message.contains("/") == false
        }
        #expect(study.session("p2") == nil)
    }

    @Test func erasure_removesEveryFileAndRow() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        for id in ["done", "left"] {
            _ = try study.admit(participant: id, group: nil)
            try Self.watch(study, id, "first", progress: Self.measured(to: 3, ended: true))
        }
        #expect(try study.delete("done"))
        #expect(!FileManager.default.fileExists(atPath: study.folder.participant("done").path))
        #expect(try StudyManifest(path: study.folder.manifest.path).rows.map(\.participant) == ["left"])
        #expect(try !study.delete("done"))
    }

    @Test func aStimulusChangedSinceInit_isNotServed() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        try Data("edited".utf8).write(to: parent.appendingPathComponent("ad/stimuli/first.mp4"))
        let desk = try StudyDesk(parent: parent, budget: AnalysisBudget(framesPerSecond: 100))
        #expect(desk.studies.isEmpty)
        #expect(desk.refused["ad"]?.contains("SHA-256") == true)
    }

    @Test func recordings_areWebMOrMP4() {
        #expect(CollectedStudy.isVideo([0x1A, 0x45, 0xDF, 0xA3, 1, 2]))
        #expect(CollectedStudy.isVideo([0, 0, 0, 0x20] + Array("ftypisom".utf8)))
        #expect(!CollectedStudy.isVideo(Array("%PDF-1.7".utf8)))
        #expect(!CollectedStudy.isVideo([]))
    }

    @Test func participantRoutes_areTheStudiesOwnOnly() {
        for path in [
            "/studies/ad", "/studies/ad/config", "/studies/ad/live", "/studies/ad/recording/complete",
            "/studies/ad/resume", "/studies/ad/declines", "/studies/ad/screenout",
        ] {
            #expect(StudyRoutes.isParticipantRoute(path), "\(path)")
        }
        for path in [
            "/studies", "/studies/ad/dashboard", "/studies/ad/dashboard/study.html", "/studies/ad/participants/p1",
            "/v1/live", "/",
        ] {
            #expect(!StudyRoutes.isParticipantRoute(path), "\(path)")
        }
    }
}

/// A wall clock a test moves by hand.
final class ManualClock: Sendable {
    private let now = Mutex(Date())

    func advance(minutes: Double) { now.withLock { $0 += minutes * 60 } }

    var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
}

extension ParticipantSession.StimulusProgress {
    func ended(_ ended: Bool) -> Self {
        var progress = self
        progress.ended = ended
        return progress
    }
}
