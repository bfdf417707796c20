import Foundation
import Mien
import Testing

@testable import MienService
@testable import MienStudies

/// Issue 77 item 1: admission, re-entry and quotas are decisions over a ledger value, tested here with no socket,
/// file, store or clock (`StudyLedger+Admission.swift`).
@Suite("Admission on a ledger value")
struct StudyLedgerAdmissionTests {
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    static func settings(
        groups: [String] = ["A", "B"], order: CollectionSettings.Order = .counterbalanced, cap: Int? = nil,
        targets: [String: Int] = [:], close: Bool = true
    ) throws -> CollectionSettings {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.targets = targets
        fieldwork.targetsClose = close
        let stimuli = ["first", "second"].map {
            CollectionSettings.Stimulus(
                name: $0, file: "\($0).mp4", sha256: String(repeating: "0", count: 64), duration: 10)
        }
        return try CollectionSettings(
            stimuli: stimuli, groups: groups, order: order, consent: "ok", maximumParticipants: cap,
            fieldwork: fieldwork)
    }

    @Test func newParticipants_areNumberedBalancedAndRotated() throws {
        let settings = try Self.settings()
        var ledger = StudyLedger()
        var placed: [(Int, String?, [String])] = []
        for index in 1...4 {
            guard
                case .agreed(let session) = ledger.consent(
                    "p\(index)", token: "t\(index)", linked: nil, open: [], server: "here", study: "ad",
                    settings: settings,
                    now: Self.start)
            else {
                Issue.record("p\(index) was not admitted")
                return
            }
            placed.append((session.number, session.group, session.order))
        }
        #expect(placed.map(\.0) == [1, 2, 3, 4])
        #expect(placed.map(\.1) == ["A", "B", "A", "B"])
        #expect(
            placed.map(\.2) == [["first", "second"], ["second", "first"], ["first", "second"], ["second", "first"]])
        #expect(ledger.nextNumber == 5 && ledger.sessions.participant(token: "t3") == "p3")
    }

    /// Issue 94 item 3: an ID is not a credential.
    ///
    /// A consent with a known ID is refused whatever the session's state
    /// (live, between sockets, left within its window, complete, erased), counted by why, and the session unchanged;
    /// coming back is by the page's token (`resume`).
    @Test func aKnownID_isRefusedInEveryState_andTheSessionIsUntouched() throws {
        let settings = try Self.settings()
        var ledger = StudyLedger()
        _ = ledger.consent(
            "p1", token: "t1", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: Self.start)
        let kept = ledger.sessions["p1"]
        func again(_ token: String, open: Set<String> = [], at now: Date = Self.start) -> StudyLedger.Consent {
            ledger.consent(
                "p1", token: token, linked: nil, open: open, server: "here", study: "ad", settings: settings, now: now)
        }
        // Live, and between sockets (the camera step, the queue, between a stimulus's end and completion).
        #expect(again("t2", open: ["p1"]) == .refused("in progress, without its page's token"))
        #expect(again("t3") == .refused("in progress, without its page's token"))
        #expect(ledger.sessions["p1"] == kept && ledger.sessions.participant(token: "t1") == "p1")
        #expect(ledger.sessions.participant(token: "t2") == nil && ledger.sessions.participant(token: "t3") == nil)
        // Left, within the window and past it; complete; erased.
        ledger.sessions["p1"]?.state = .incomplete
        ledger.sessions["p1"]?.finished = SessionTime.timestamp(Self.start)
        let later = Self.start.addingTimeInterval(30 * 60)
        #expect(again("t4", at: later) == .refused("in progress, without its page's token"))
        let past = later.addingTimeInterval(61 * 60)
        #expect(again("t5", at: past) == .refused("left more than 60 min ago"))
        ledger.sessions["p1"]?.state = .complete
        #expect(again("t6", at: later) == .refused("already complete"))
        ledger.counts.erasedIDs.insert(FieldworkCounts.erasedDigest(study: "ad", participant: "p2"))
        #expect(
            ledger.consent(
                "p2", token: "t7", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: later)
                == .refused("erased"))
        #expect(
            ledger.refusedIDs == [
                "in progress, without its page's token": 3, "left more than 60 min ago": 1, "already complete": 1,
                "erased": 1,
            ])
        #expect(ledger.sessions.count == 1 && ledger.sessions["p1"]?.reentries == 0)
        // Their own page's token brings them back within the window.
        ledger.sessions["p1"]?.state = .incomplete
        let back = try ledger.resume("p1", server: "here", settings: settings, now: later)
        #expect(back.takesOver && back.from == .incomplete && ledger.sessions["p1"]?.reentries == 1)
    }

    @Test func resume_takesUpTheSession_andMarksAnotherServersSocketToBeGivenUp() throws {
        let settings = try Self.settings()
        var ledger = StudyLedger()
        _ = ledger.consent(
            "p1", token: "t1", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: Self.start)
        ledger.sockets["p1"] = SocketHolder(server: "elsewhere", socket: UUID())
        ledger.sessions["p1"]?.state = .incomplete
        ledger.sessions["p1"]?.finished = SessionTime.timestamp(Self.start)
        let back = try ledger.resume("p1", server: "here", settings: settings, now: Self.start.addingTimeInterval(60))
        #expect(back.takesOver && back.from == .incomplete)
        #expect(ledger.sessions["p1"]?.state == .started && ledger.sessions["p1"]?.reentries == 1)
        #expect(ledger.sockets["p1"]?.replacedBy == "here")
        // Back after the holding server stopped beating: still marked, so that no upkeep takes them for gone with it.
        ledger.liveServers = ["here"]
        ledger.sockets["p1"] = SocketHolder(server: "stopped", socket: UUID())
        ledger.sessions["p1"]?.state = .incomplete
        _ = try ledger.resume("p1", server: "here", settings: settings, now: Self.start.addingTimeInterval(60))
        #expect(ledger.holder(of: "p1") == nil && ledger.sockets["p1"]?.replacedBy == "here")
        ledger.sockets["p1"] = SocketHolder(server: "elsewhere", socket: UUID(), replacedBy: "here")
        ledger.liveServers = nil
        // A reload of a page still started: not a re-entry; a complete session stays as it is.
        let reentries = ledger.sessions["p1"]?.reentries
        #expect(try ledger.resume("p1", server: "here", settings: settings, now: Self.start).from == nil)
        #expect(ledger.sessions["p1"]?.reentries == reentries)
        ledger.sessions["p1"]?.state = .complete
        #expect(try !ledger.resume("p1", server: "here", settings: settings, now: Self.start).takesOver)
        ledger.sessions["p1"]?.state = .screenedOut
        #expect(throws: StudyRefusal.self) {
            try ledger.resume("p1", server: "here", settings: settings, now: Self.start)
        }
        #expect(throws: StudyRefusal.self) { try ledger.resume("p9", server: "here", settings: settings, now: .now) }
    }

    @Test func targets_closeTheirGroup_andTheStudy_unlessOnlyShown() throws {
        var ledger = StudyLedger()
        let closing = try Self.settings(targets: ["A": 1, "B": 2])
        func consent(_ id: String, linked: String? = nil, _ settings: CollectionSettings) -> StudyLedger.Consent {
            ledger.consent(
                id, token: id, linked: linked, open: [], server: "here", study: "ad", settings: settings,
                now: Self.start)
        }
        func framed(_ id: String) { ledger.sessions[id]?.framed = SessionTime.timestamp(Self.start) }
        guard case .agreed = consent("p1", linked: "A", closing) else {
            Issue.record("p1 was not admitted")
            return
        }
        // A consent alone takes no place: A is full once p1 is through the framing check.
        guard case .agreed = consent("p0", linked: "A", closing) else {
            Issue.record("a second consent to A was refused before anyone was framed")
            return
        }
        framed("p1")
        #expect(consent("p2", linked: "A", closing) == .groupFull("A"))
        #expect(ledger.counts.turnedAwayGroupFull == ["A": 1])
        guard case .agreed(let second) = consent("p3", closing), second.group == "B" else {
            Issue.record("p3 was not placed in B")
            return
        }
        framed("p3")
        _ = consent("p4", closing)
        framed("p4")
        #expect(consent("p5", closing) == .targetsMet)
        // Shown only: the same ledger takes more.
        let shown = try Self.settings(targets: ["A": 1, "B": 2], close: false)
        guard case .agreed = consent("p6", linked: "A", shown) else {
            Issue.record("p6 was not admitted under targets shown only")
            return
        }
        // Someone screened out frees their place.
        ledger.sessions["p1"]?.state = .screenedOut
        guard case .agreed(let freed) = consent("p7", linked: "A", closing), freed.group == "A" else {
            Issue.record("p7 did not take the freed place in A")
            return
        }
    }

    /// Issue 94 item 2: ten bare consents from one address do not close a group; the place is taken at the framing
    /// check, first through it first; a framed place is held `framedHold` and then frees; those turned away are
    /// screened out over quota.
    @Test func bareConsents_takeNoPlace_theFramingCheckDoes_firstThroughFirst() throws {
        var ledger = StudyLedger()
        let settings = try Self.settings(targets: ["A": 5, "B": 5])
        for index in 0..<10 {
            _ = ledger.consent(
                "bare\(index)", token: "b\(index)", linked: nil, open: [], server: "here", study: "ad",
                settings: settings, now: Self.start)
        }
        // The ten spread evenly over the groups (balance counts consents), and the study is still open.
        #expect(ledger.sessions.values.filter { $0.group == "A" }.count == 5)
        guard
            case .agreed(let real) = ledger.consent(
                "real", token: "r", linked: "A", open: [], server: "here", study: "ad", settings: settings,
                now: Self.start)
        else {
            Issue.record("a real participant was refused after ten bare consents")
            return
        }
        #expect(real.group == "A" && ledger.placeRefused("real", open: [], settings: settings, now: Self.start) == nil)
        // Five others through the check fill A; the real participant, framed after them, is refused and turned away.
        for index in 0..<10 where ledger.sessions["bare\(index)"]?.group == "A" {
            ledger.sessions["bare\(index)"]?.framed = SessionTime.timestamp(Self.start)
        }
        let aFramed = ledger.sessions.values.filter { $0.group == "A" && $0.framed != nil }.count
        #expect(aFramed == 5)
        #expect(ledger.placeRefused("real", open: [], settings: settings, now: Self.start) == .groupFull("A"))
        // Their holds lapse after `framedHold` unless they start watching: the place is free again.
        let lapsed = Self.start.addingTimeInterval(StudyLedger.framedHold + 1)
        #expect(ledger.placeRefused("real", open: [], settings: settings, now: lapsed) == nil)
        ledger.turnAway("real", .groupFull("A"), now: Self.start)
        #expect(ledger.sessions["real"]?.state == .screenedOut && ledger.sessions["real"]?.reasonCode == .studyFull)
        #expect(ledger.counts.turnedAwayGroupFull == ["A": 1])
        // A framed participant whose own place is held is not refused by counting themselves.
        ledger.sessions["bare0"]?.framed = SessionTime.timestamp(Self.start)
        #expect(
            ledger.sessions["bare0"]?.group != "A"
                || ledger.placeRefused("bare0", open: ["bare0"], settings: settings, now: Self.start) == nil)
    }

    /// Issue 79 item 5: a participant who completes with a viewing below the published rules (the page hidden for
    /// half of each stimulus) is approved with their code, but does not fill their group's target, unless the study
    /// counts everyone who completes.
    @Test func aCompleteViewerBelowTheViewingRules_doesNotFillTheQuota_unlessEveryoneCounts() throws {
        for everyone in [false, true] {
            var settings = try Self.settings(targets: ["A": 1, "B": 1])
            settings.fieldwork.targetsCountEveryone = everyone ? true : nil
            var ledger = StudyLedger()
            guard
                case .agreed = ledger.consent(
                    "p1", token: "t1", linked: "A", open: [], server: "here", study: "ad", settings: settings,
                    now: Self.start)
            else {
                Issue.record("p1 was not admitted")
                return
            }
            var session = try #require(ledger.sessions["p1"])
            for stimulus in ["first", "second"] {
                var progress = ParticipantSession.StimulusProgress()
                progress.ended = true
                progress.coverage = 1
                var viewing = Viewing()
                try viewing.adding(.init(kind: .hidden, at: 2), duration: 10)
                try viewing.adding(.init(kind: .visible, at: 7), duration: 10)
                progress.viewing = viewing
                session.stimuli[stimulus] = progress
            }
            try session.complete(code: "C1", settings: settings, now: Self.start)
            #expect(session.state == .complete && session.code == "C1", "their completion stands")
            #expect(
                (session.belowQuality?.contains("first: viewing rule hidden: the page was hidden 5 s of 10 s") ?? false)
                    == !everyone, "\(session.belowQuality ?? "counts")")
            ledger.sessions["p1"] = session
            let next = ledger.consent(
                "p2", token: "t2", linked: "A", open: [], server: "here", study: "ad", settings: settings,
                now: Self.start)
            if everyone {
                #expect(next == .groupFull("A"), "everyone counts: A's one place is taken")
            } else {
                guard case .agreed(let placed) = next, placed.group == "A" else {
                    Issue.record("p2 was not let into A, whose only complete viewer is below the rules: \(next)")
                    return
                }
            }
        }
    }

    @Test func theCap_countsThoseWhoStartedWatching() throws {
        let settings = try Self.settings(cap: 1)
        var ledger = StudyLedger()
        _ = ledger.consent(
            "p1", token: "t1", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: Self.start)
        // A consent that has not started watching does not fill the study.
        guard
            case .agreed = ledger.consent(
                "p2", token: "t2", linked: nil, open: [], server: "here", study: "ad", settings: settings,
                now: Self.start)
        else {
            Issue.record("p2 was refused before anyone watched")
            return
        }
        ledger.sessions["p1"]?.watchingSince = SessionTime.timestamp(Self.start)
        #expect(
            ledger.consent(
                "p3", token: "t3", linked: nil, open: [], server: "here", study: "ad", settings: settings,
                now: Self.start)
                == .full(1))
        #expect(ledger.counts.turnedAwayFull == 1)
    }

    /// An attempt's start: refused saying why, numbered one past every attempt begun, the earlier set aside under
    /// its number with what it measured, and turned away when the study is full before they started watching.
    @Test func attempts_areNumbered_setAside_andRefusedSayingWhy() throws {
        let settings = try Self.settings(groups: [], cap: 1)
        var ledger = StudyLedger()
        _ = ledger.consent(
            "p1", token: "t1", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: Self.start)
        _ = ledger.consent(
            "p2", token: "t2", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: Self.start)
        func begin(_ id: String, _ stimulus: String = "first", openHere: Bool = false) throws
            -> StudyLedger.AttemptStart?
        {
            try ledger.beginAttempt(
                id, stimulus: stimulus, holder: SocketHolder(server: "here", socket: UUID()), openHere: openHere,
                recovering: { nil }, settings: settings, now: Self.start)
        }
        func refused(_ code: String, _ start: () throws -> StudyLedger.AttemptStart?) {
            #expect(throws: StudyRefusal.self) { _ = try start() }
            do { _ = try start() } catch let refusal as StudyRefusal {
                #expect(refusal.code == code, "\(refusal.code)")
            } catch { Issue.record("\(error)") }
        }
        refused("notFramed") { try begin("p1") }
        ledger.sessions["p1"]?.framed = "yes"
        ledger.sessions["p2"]?.framed = "yes"
        refused("notFound") { try begin("p1", "third") }
        refused("alreadyStreaming") { try begin("p1", openHere: true) }
        #expect(try begin("p1") == .init(number: 1, setAside: nil))
        #expect(ledger.holder(of: "p1") != nil && ledger.sessions["p1"]?.watchingSince != nil)
        refused("alreadyStreaming") { try begin("p1", openHere: true) }
        // Held on another server that is live: refused too.
        let held = ledger.sockets["p1"]
        ledger.sockets["p1"] = SocketHolder(server: "elsewhere", socket: UUID())
        refused("alreadyStreaming") { try begin("p1") }
        ledger.sockets["p1"] = held
        // A refused start never recovers files: they may be the open socket's own.
        _ = try? ledger.beginAttempt(
            "p1", stimulus: "first", holder: SocketHolder(server: "here", socket: UUID()), openHere: true,
            recovering: {
                Issue.record("files recovered while a socket of theirs is open")
                return nil
            }, settings: settings, now: Self.start)
        // p1 is watching: the cap of 1 turns p2 away, changing nothing.
        #expect(try begin("p2") == nil && ledger.holder(of: "p2") == nil)
        // Cut at 40 %: the next attempt is 2, the first set aside with what it measured.
        ledger.sockets["p1"] = nil
        ledger.sessions["p1"]?.stimuli["first"] = StudyCollectionTests.measured(to: 4, ended: false, duration: 10)
        #expect(try begin("p1") == .init(number: 2, setAside: 1))
        let aside = try #require(ledger.sessions["p1"]?.attempts.first)
        #expect(aside.number == 1 && aside.reason.hasPrefix("interrupted at") && aside.progress.frames > 0)
        #expect(ledger.sessions["p1"]?.stimuli["first"] == nil && ledger.sessions["p1"]?.step == "first")
        // A third, then none left; a stimulus watched enough is not watched again.
        ledger.sockets["p1"] = nil
        ledger.sessions["p1"]?.stimuli["first"] = StudyCollectionTests.measured(to: 2, ended: false, duration: 10)
        #expect(try begin("p1") == .init(number: 3, setAside: 2))
        ledger.sockets["p1"] = nil
        ledger.sessions["p1"]?.stimuli["first"] = StudyCollectionTests.measured(to: 1, ended: true, duration: 10)
        refused("noAttemptsLeft") { try begin("p1") }
        ledger.sessions["p1"]?.stimuli["second"] = StudyCollectionTests.measured(to: 10, ended: true, duration: 10)
        refused("alreadyWatched") { try begin("p1", "second") }
        ledger.sessions["p1"]?.state = .complete
        refused("sessionEnded") { try begin("p1", "second") }
    }

    /// An attempt that measured no frame but whose page recorded the viewing (its tab hidden throughout) is an
    /// exposure: recorded, with nothing to set aside, and judged with the rest; one with neither is not recorded.
    @Test func anAttemptHiddenThroughout_isRecorded_withNoFilesSetAside() throws {
        let settings = try Self.settings(groups: [], cap: nil)
        var ledger = StudyLedger()
        _ = ledger.consent(
            "p1", token: "t1", linked: nil, open: [], server: "here", study: "ad", settings: settings, now: Self.start)
        ledger.sessions["p1"]?.framed = "yes"
        func begin() throws -> StudyLedger.AttemptStart? {
            let start = try ledger.beginAttempt(
                "p1", stimulus: "first", holder: SocketHolder(server: "here", socket: UUID()), openHere: false,
                recovering: { nil }, settings: settings, now: Self.start)
            ledger.sockets["p1"] = nil
            return start
        }
        #expect(try begin() == .init(number: 1, setAside: nil))
        // The socket opened and closed with nothing from the page: not an exposure anyone can know of.
        ledger.sessions["p1"]?.stimuli["first"] = ParticipantSession.StimulusProgress()
        #expect(try begin() == .init(number: 2, setAside: nil))
        #expect(ledger.sessions["p1"]?.attempts.isEmpty == true)
        var hidden = ParticipantSession.StimulusProgress()
        hidden.ended = true
        hidden.viewing = Viewing()
        hidden.viewing?.events = [.init(kind: .hidden, at: 0.1)]
        ledger.sessions["p1"]?.stimuli["first"] = hidden
        #expect(try begin() == .init(number: 3, setAside: nil))
        let session = try #require(ledger.sessions["p1"])
        #expect(session.attempts.map(\.number) == [2] && session.attempts.first?.reason.hasPrefix("measured 0") == true)
        var watched = session
        watched.stimuli["first"] = StudyCollectionTests.measured(to: 10, ended: true, duration: 10)
        #expect(watched.exposures(of: "first") == 2)
        // Its hidden stretch counts: hidden from 0.1 s to that attempt's end.
        let figures = try #require(watched.exposureFigures(of: "first", duration: 10))
        #expect(figures.hiddenSeconds > 9, "\(figures)")
    }
}
