import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Mien
import MienStudies
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
        fieldwork: CollectionSettings.Fieldwork = .init(), skippableAfter: Double? = nil,
        questions: StudyQuestions? = nil, attributes: [PanelAttribute]? = nil
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
        var settings = try CollectionSettings(
            stimuli: stimuli, groups: groups, order: order, consent: "ok", maximumParticipants: maximum,
            skippableAfter: skippableAfter, questions: questions, fieldwork: fieldwork)
        settings.attributes = attributes
        try settings.validate()
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        return parent
    }

    /// Where a test's study keeps its sessions: both stores pass the same collection tests.
    enum Store: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case folder, postgres
        var testDescription: String { rawValue }
    }

    /// A served study on `store` (PostgreSQL: a server of the test's own), and what stops it.
    static func open(_ store: Store, _ parent: URL, clock: @escaping @Sendable () -> Date = Date.init) async throws
        -> (study: CollectedStudy, stop: @Sendable () -> Void)
    {
        let folder = parent.appendingPathComponent("ad")
        switch store {
        case .folder:
            return (try CollectedStudy(folder: folder, clock: clock), {})
        case .postgres:
            let server = try await PostgresServer.start()
            do {
                let database = try await StudyDatabase.open(
                    try DatabaseURL(server.url()), logger: Logger(label: "mien.test.database"))
                let study = try await CollectedStudy(folder: folder, database: database, clock: clock)
                return (
                    study,
                    {
                        database.close()
                        server.stop()
                    }
                )
            } catch {
                server.stop()
                throw error
            }
        }
    }

    static func refusal(_ status: HTTPResponse.Status, code: String? = nil, _ work: () async throws -> Void) async {
        await #expect {
            try await work()
        } throws: { error in
            guard let refusal = ServiceRefusal.from(error) else { return false }
            return refusal.status == status && (code == nil || refusal.code == code)
        }
    }

    /// A socket as the routes register one (nothing to close in these tests).
    static func socket(_ kind: String) -> CollectedStudy.OpenSocket {
        .init(kind: kind, inStimulus: kind != "framing", opened: Date(), progress: nil, close: { _ in })
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

    /// Consents `id` and records a framing check the server saw pass: a participant ready for a stimulus.
    /// - Returns: their token.
    static func consented(_ study: CollectedStudy, _ id: String) async throws -> String {
        let token = try await study.admit(participant: id, group: nil).token
        try await framed(study, id)
        return token
    }

    /// A framing check of `id` that the server saw pass, as its socket records one (a stimulus needs it).
    static func framed(_ study: CollectedStudy, _ id: String) async throws {
        let socket = Self.socket("framing")
        try await study.beginFraming(id, socket: socket)
        await study.framingEnded(id, socket: socket.id, passed: true)
    }

    /// Watches `stimulus` for `id` as a socket would (after a framing check, when the session has none),
    /// ending with `end`.
    @discardableResult
    static func watch(
        _ study: CollectedStudy, _ id: String, _ stimulus: String, progress: ParticipantSession.StimulusProgress,
        end: CollectedStudy.SocketEnd = .ended
    ) async throws -> CollectedStudy.StimulusOutcome {
        if study.session(id)?.framed == nil { try await Self.framed(study, id) }
        let socket = Self.socket(stimulus)
        let (found, _) = try await study.beginStimulus(id, stimulus: stimulus, socket: socket)
        return await study.endStimulus(id, stimulus: found, progress: progress, end: end, socket: socket.id)
    }

    @Test(arguments: Store.allCases)
    func consent_balancesThoseWhoCount_rotatesOrders_andRefusesBadIDsAndAFullStudy(store: Store) async throws {
        let parent = try Self.studies(order: .counterbalanced, maximum: 2)
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent)
        defer { stop() }
        let first = try await study.admit(participant: "p1", group: nil)
        #expect(first.group == "A" && first.order == ["first", "second"])
        // p1 is getting ready (a consent that has not expired): p2 goes to the other group.
        let second = try await study.admit(participant: "p2", group: nil)
        #expect(second.group == "B" && second.order == ["second", "first"])
        // p2 cannot turn the camera on: screened out before watching, they no longer count.
        _ = try await study.screenOut("p2", reason: .noCamera)
        #expect(try await study.admit(participant: "p3", group: nil).group == "B", "A has p1, B nobody who counts")
        try await Self.watch(study, "p1", "first", progress: Self.measured(to: 3, ended: true))
        #expect(try await study.admit(participant: "p4", group: nil).group == "A", "one each: the first listed")
        await Self.refusal(.badRequest) { _ = try await study.admit(participant: "../p9", group: nil) }
        await Self.refusal(.badRequest) { _ = try await study.admit(participant: "p9", group: "C") }
        // The cap counts those who started watching (2): consents are still taken, a third watcher is not.
        try await Self.watch(study, "p3", "second", progress: Self.measured(to: 3, ended: true))
        await Self.refusal(.forbidden, code: "studyFull") { _ = try await study.admit(participant: "p9", group: nil) }
        try await Self.framed(study, "p4")
        await Self.refusal(.forbidden, code: "studyFull") {
            _ = try await study.beginStimulus("p4", stimulus: "first", socket: Self.socket("first"))
        }
        #expect(study.session("p4")?.state == .screenedOut && study.session("p4")?.reasonCode == .studyFull)
        #expect(study.store.current().counts.turnedAwayFull == 1)
        // A token is its participant's, and only this study's; the store keeps its digest only.
        #expect(try await study.participant(token: first.token) == "p1")
        await Self.refusal(.unauthorized) { _ = try await study.participant(token: "not-a-token") }
        if store == .folder {
            let stored = try String(contentsOf: study.folder.session("p1"), encoding: .utf8)
            #expect(!stored.contains(first.token) && stored.contains(CollectedStudy.digest(first.token)))
        }
    }

    /// Issue 77: an attempt whose end was never recorded (its server killed, the database away) keeps its number:
    /// the next is one past it, so a database's rows of the first never meet the second's.
    @Test(arguments: Store.allCases)
    func attemptNumbers_neverRepeat_evenAfterAnUnrecordedEnd(store: Store) async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent)
        defer { stop() }
        _ = try await Self.consented(study, "p1")
        let first = Self.socket("first")
        let (_, one) = try await study.beginStimulus("p1", stimulus: "first", socket: first)
        // Its socket is released as a dead server's is, its end never recorded.
        study.closed("p1", first.id)
        _ = await study.record("p1", releasing: first.id) { _ in }
        #expect(study.session("p1")?.stimuli["first"] == nil, "nothing recorded of the first attempt")
        let (_, two) = try await study.beginStimulus("p1", stimulus: "first", socket: Self.socket("first"))
        #expect(one == 1 && two == 2, "\(one), \(two)")
        #expect(study.session("p1")?.currentAttempt("first") == 2)
    }

    /// Issue 78: 20 consents with an edited link's `group=A` within one address's burst no longer send the next
    /// participants to B: unsigned, the server balances them; a signed link still assigns its group.
    @Test func unsignedGroups_areBalancedByTheServer_signedOnesAssigned() async throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.groupLinkKey = GroupLink.newKey()
        let key = try #require(fieldwork.groupLinkKey)
        let parent = try Self.studies(fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(.folder, parent)
        defer { stop() }
        var groups: [String] = []
        for index in 0..<20 {
            groups.append(try await study.admit(participant: "x\(index)", group: "A").group ?? "")
        }
        #expect(groups.filter { $0 == "A" }.count == 10, "balanced: \(groups)")
        let next = try await study.admit(participant: "real", group: nil)
        #expect(next.group == "A", "an even split: the first listed")
        let signed = try await study.admit(
            participant: "signed", group: "B", signature: GroupLink.signature(group: "B", key: key))
        #expect(signed.group == "B")
        let forged = try await study.admit(
            participant: "forged", group: "B", signature: GroupLink.signature(group: "A", key: key))
        #expect(forged.group == "A", "another group's signature is none: balanced, 11 each, the first listed")
    }

    /// The page shows settings.json's consent; an edit of consent.md alone would do nothing (issue 96 item 12):
    /// refused at start naming the file, until the two agree.
    @Test func aConsentMdThatDiffersFromTheSettings_isRefusedNamingIt() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("ad")
        let copy = folder.appendingPathComponent("consent.md")
        try Data("ok\n".utf8).write(to: copy)
        _ = try CollectedStudy(folder: folder)
        try Data("ok, and we keep your video for ten years\n".utf8).write(to: copy)
        #expect {
            _ = try CollectedStudy(folder: folder)
        } throws: { error in
            "\(error)".contains("consent.md differs from settings.json's") && "\(error)".contains(copy.path)
        }
    }

    @Test(arguments: Store.allCases)
    func reentry_goesOnFromTheInterruptedStimulus_keepingItsPartialDataApart(store: Store) async throws {
        let clock = ManualClock()
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent, clock: clock.read)
        defer { stop() }
        let consent = try await study.admit(participant: "p1", group: "A")
        try await Self.watch(study, "p1", "first", progress: Self.measured(to: 3, ended: true))
        // A reload halfway through the second stimulus: its socket closes, the participant is incomplete.
        let files = study.folder.files(participant: "p1", stimulus: "second")
        // As the socket does (a database store keeps no session file there).
        try FileManager.default.createDirectory(at: study.folder.participant("p1"), withIntermediateDirectories: true)
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: files.jsonl ?? ""))
        try await Self.watch(study, "p1", "second", progress: Self.measured(to: 1.4, ended: false), end: .left)
        #expect(study.session("p1")?.state == .incomplete && study.session("p1")?.reasonCode == .left)
        // The page kept its token: it comes back, and goes on with the second stimulus.
        clock.advance(minutes: 5)
        let back = try await study.resume(token: consent.token)
        #expect(back.watched == ["first"] && back.state == "started")
        let outcome = try await Self.watch(study, "p1", "second", progress: Self.measured(to: 3, ended: true))
        #expect(outcome.enough)
        let session = try #require(study.session("p1"))
        #expect(session.reentries == 1 && session.attempts.count == 1 && session.attempts.first?.number == 1)
        #expect(session.attempts.first?.progress.coverage ?? 1 < 0.6)
        let apart = study.folder.files(participant: "p1", stimulus: "second.attempt1")
        #expect(FileManager.default.fileExists(atPath: apart.jsonl ?? ""), "the first attempt's results kept apart")
        let (_, code) = try await study.complete("p1")
        #expect(code.count == 8 && study.session("p1")?.code == code)
        // Two exposures of the second stimulus (issue 95 item 2), in either store; approvals.csv says why it was
        // shown again.
        #expect(study.session("p1")?.exposures(of: "second") == 2 && study.session("p1")?.exposures(of: "first") == 1)
        let approval = study.approvals(in: .gmt).split(separator: "\n").first { $0.hasPrefix("p1,") } ?? ""
        #expect(approval.contains("second: shown again after attempt 1 ("), "\(approval)")
        // The dashboard's manifest.csv from either store (issue 96 item 10: a database study's was empty).
        let manifest = study.manifest().split(separator: "\n")
        #expect(manifest.count == 3 && manifest[2].hasPrefix("participants/p1/second,p1,second,0,"), "\(manifest)")
        // Completed: the same ID cannot start again, and the answer does not say why.
        await Self.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        // Coming back with the token after completing shows the code again.
        #expect(try await study.resume(token: consent.token).code == code)
    }

    @Test(arguments: Store.allCases)
    func reentry_byItsTokenWithinTheWindowOnly_andAnUnusedConsentExpiresFreeingItsID(store: Store) async throws {
        let clock = ManualClock()
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent, clock: clock.read)
        defer { stop() }
        let old = try await study.admit(participant: "p1", group: "B")
        try await Self.watch(study, "p1", "first", progress: Self.measured(to: 1, ended: false), end: .left)
        // A closed tab whose browser kept the token comes back within the window; the ID alone does not (issue 94).
        clock.advance(minutes: 30)
        await Self.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: "A")
        }
        let again = try await study.resume(token: old.token)
        #expect(again.group == "B" && again.state == "started", "a participant keeps their group")
        try await Self.watch(study, "p1", "first", progress: Self.measured(to: 0.5, ended: false), end: .left)
        clock.advance(minutes: 61)
        await Self.refusal(.conflict, code: "cannotTakePart") { _ = try await study.resume(token: old.token) }
        await Self.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        // A probe with someone's ID registers it; it expires unused and the owner can take part.
        _ = try await study.admit(participant: "owner", group: nil)
        clock.advance(minutes: 16)
        await study.expireConsents()
        #expect(study.session("owner") == nil)
        #expect(!FileManager.default.fileExists(atPath: study.folder.participant("owner").path))
        #expect(try await study.admit(participant: "owner", group: nil).participant == "owner")
    }

    @Test(arguments: Store.allCases)
    func completion_needsEveryStimulusMeasured_notJustEnded(store: Store) async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent)
        defer { stop() }
        _ = try await study.admit(participant: "empty", group: nil)
        // `end` with no frame, then `complete`: no code.
        let empty = try await Self.watch(study, "empty", "first", progress: .init().ended(true))
        #expect(!empty.enough && empty.attemptsLeft == 2)
        // Frames at 0 and 2.9 s of a 3 s stimulus measure 0.5 s of it, not all of it.
        _ = try await study.admit(participant: "sparse", group: nil)
        var sparse = ParticipantSession.StimulusProgress()
        var time = MeasuredTime(duration: 3, span: 0.4)
        for t in [0, 2.9] { time.add(t) }
        sparse.coverage = time.share
        sparse.frames = 2
        sparse.analysed = 2
        sparse.ended = true
        #expect(abs(sparse.coverage - 0.5 / 3) < 0.01, "0-0.2 s and 2.7-3 s")
        let outcome = try await Self.watch(study, "sparse", "first", progress: sparse)
        #expect(!outcome.enough)
        try await Self.watch(study, "sparse", "second", progress: Self.measured(to: 3, ended: true))
        await Self.refusal(.conflict, code: "tooLittleMeasured") { _ = try await study.complete("sparse") }
        // The attempts allowed used up: screened out, with the panel's screen-out link.
        for _ in 0..<2 { try await Self.watch(study, "sparse", "first", progress: sparse) }
        #expect(study.session("sparse")?.state == .screenedOut)
        #expect(study.session("sparse")?.reasonCode == .tooLittleMeasured)
        await Self.refusal(.conflict) { _ = try await study.complete("sparse") }
    }

    @Test func aKilledServersPartialResults_areRecoveredAtStart_withAManifestRow() async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        var study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try await study.admit(participant: "p1", group: nil)
        try await Self.framed(study, "p1")
        _ = try await study.beginStimulus("p1", stimulus: "first", socket: Self.socket("first"))
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

    @Test func aFailingDisk_leavesNoGhostConsent_andGivesNoCode() async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try await study.admit(participant: "p1", group: nil)
        try await Self.watch(study, "p1", "first", progress: Self.measured(to: 3, ended: true))
        try await Self.watch(study, "p1", "second", progress: Self.measured(to: 3, ended: true))
        // The participant's session file cannot be replaced (root ignores permissions: a folder in its way).
        let session = study.folder.session("p1")
        try FileManager.default.removeItem(at: session)
        try FileManager.default.createDirectory(at: session, withIntermediateDirectories: true)
        await Self.refusal(.serviceUnavailable, code: "notSaved") { _ = try await study.complete("p1") }
        #expect(study.session("p1")?.state == .started && study.session("p1")?.code == nil)
        // No participant folder can be made: consent answers 503 without a path, and leaves no session.
        try FileManager.default.removeItem(at: study.folder.participants)
        try Data().write(to: study.folder.participants)
        await #expect {
            _ = try await study.admit(participant: "p2", group: nil)
        } throws: { error in
            let refusal = ServiceRefusal.from(error)
            return refusal?.status == .serviceUnavailable && refusal?.message.contains("/") == false
        }
        #expect(study.session("p2") == nil)
    }

    @Test(arguments: Store.allCases)
    func erasure_removesEveryFileAndRow(store: Store) async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent)
        defer { stop() }
        for id in ["done", "left"] {
            _ = try await study.admit(participant: id, group: nil)
            try await Self.watch(study, id, "first", progress: Self.measured(to: 3, ended: true))
        }
        #expect(try await study.delete("done"))
        #expect(!FileManager.default.fileExists(atPath: study.folder.participant("done").path))
        #expect(study.sessions.map(\.participant) == ["left"])
        if store == .folder {
            #expect(try StudyManifest(path: study.folder.manifest.path).rows.map(\.participant) == ["left"])
        }
        #expect(try await !study.delete("done"))
    }

    /// Issue 77/78: an ID is not a credential, and an erasure is for good.
    @Test(arguments: Store.allCases)
    func aConsentNeverTakesOverALivePage_andAnErasedIDCannotTakePartAgain(store: Store) async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Self.open(store, parent)
        defer { stop() }
        let first = try await study.admit(participant: "p1", group: nil)
        try await Self.framed(study, "p1")
        let socket = Self.socket("first")
        let (stimulus, _) = try await study.beginStimulus("p1", stimulus: "first", socket: socket)
        // Someone else with p1's ID (or p1 in a second browser) while p1 watches: refused, p1's page goes on.
        await Self.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        #expect(try await study.participant(token: first.token) == "p1", "the live page keeps its token")
        #expect(study.session("p1")?.state == .started)
        // Once that page has gone (between sockets, or left), the ID still takes nothing (issue 94): only the
        // page's own token goes on.
        await study.endStimulus(
            "p1", stimulus: stimulus, progress: Self.measured(to: 1, ended: false), end: .left, socket: socket.id)
        await Self.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        let again = try await study.resume(token: first.token)
        #expect(again.participant == "p1" && study.session("p1")?.reentries == 1)

        // Erased: the ID can never consent again (and so never be given a second code); only a digest is kept.
        #expect(try await study.delete("p1"))
        await Self.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        let counts = study.store.current().counts
        #expect(counts.erasedIDs.count == 1 && !counts.erasedIDs.contains("p1"))
        #expect(study.store.current().refusedIDs["erased"] == 1)
        #expect(try await study.admit(participant: "p2", group: nil).participant == "p2", "other IDs take part")
        if store == .folder {
            // Kept in fieldwork.json: a restarted server refuses the ID too.
            let fieldwork = try String(contentsOf: study.folder.fieldwork, encoding: .utf8)
            #expect(!fieldwork.contains("p1") && fieldwork.contains("erasedIDs"))
            let restarted = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
            await Self.refusal(.conflict, code: "cannotTakePart") {
                _ = try await restarted.admit(participant: "p1", group: nil)
            }
        }
    }

    /// Issue 78: a server's log names participants by number, never by their panel ID, and shows no server path.
    @Test func logs_nameParticipantsByNumber_andNoServerPath() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        let cause = "\(study.folder.participant("PANEL-ID-7").path)/first.jsonl: No space left on device"
        let logged = study.logged(cause, of: "PANEL-ID-7", number: 3)
        #expect(logged == "participant #3's folder/first.jsonl: No space left on device", "\(logged)")
        #expect(!study.logged("\(study.folder.url.path)/manifest.csv", of: "x", number: 1).contains(parent.path))
        let key = ResultKey(study: "ad", participant: "PANEL-ID-7", stimulus: "first", attempt: 2, number: 3)
        #expect(key.description == "study ad, participant #3, first attempt 2")
    }

    /// Sessions' times are written and read exactly as before (ISO8601DateFormatter's form), now without a
    /// formatter made per call.
    @Test func sessionTimes_keepTheirForm() {
        let formatter = ISO8601DateFormatter()
        for date in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_796_311_473.75), Date()] {
            let text = formatter.string(from: date)
            #expect(SessionTime.timestamp(date) == text)
            #expect(SessionTime.date(text) == formatter.date(from: text))
        }
        #expect(SessionTime.date("yesterday") == nil && SessionTime.date(nil) == nil)
    }

    @Test func fieldworkCounts_writtenBeforeErasuresWereKept_stillRead() throws {
        let old = Data(#"{"declined":{"A":2},"turnedAwayFull":1}"#.utf8)
        let counts = try JSONDecoder().decode(FieldworkCounts.self, from: old)
        #expect(counts.declined == ["A": 2] && counts.turnedAwayFull == 1 && counts.erasedIDs.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(counts), as: UTF8.self) == #"{"declined":{"A":2},"turnedAwayFull":1}"#)
    }

    @Test func aStimulusChangedSinceInit_isNotServed() async throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        try Data("edited".utf8).write(to: parent.appendingPathComponent("ad/stimuli/first.mp4"))
        let desk = try StudyDesk(parent: parent, budget: AnalysisBudget(framesPerSecond: 100))
        #expect(desk.studies.isEmpty)
        #expect(desk.refused["ad"]?.contains("SHA-256") == true)
        // Not ready: a balancer must not send this study's participants to a server that answers 404 (issue 77).
        #expect(desk.unready()?.contains("study ad is not served") == true, "\(desk.unready() ?? "ready")")
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
