import Foundation
import Mien
import MienStudies
import MienTesting
import Testing

@testable import MienService

/// Issue 78: the indexes a consent reads (tokens, the watching count, consents waiting, group balance, what a change
/// touched) agree with a scan of the sessions after any sequence of changes, with the clock moving forward.
@Suite("A study's sessions and their indexes")
struct SessionTableTests {
    /// The old rule, session by session: what the index must reproduce.
    static func scanned(
        _ sessions: [ParticipantSession], readySince: Double?, framedSince: Double, watchingSince: Double,
        open: Set<String>
    ) -> [String: Int] {
        var counts: [String: Int] = [:]
        for session in sessions {
            let group = session.group ?? ""
            let isOpen = open.contains(session.participant)
            let seen = { (text: String?) in
                SessionTime.date(text)?.timeIntervalSinceReferenceDate ?? -Double.infinity
            }
            let counted: Bool =
                switch session.state {
                case .complete: true
                case .screenedOut: false
                case .started where session.watchingSince == nil && session.framed != nil:
                    isOpen || seen(session.framed) >= framedSince
                case .started where session.watchingSince == nil:
                    // A consent counts for balance only (nil: places toward a target).
                    readySince.map { isOpen || seen(session.lastSeen ?? session.started) >= $0 } ?? false
                case .started, .incomplete:
                    session.watchingSince != nil
                        && (isOpen || seen(session.lastSeen ?? session.finished) >= watchingSince)
                }
            if counted { counts[group, default: 0] += 1 }
        }
        return counts.filter { $0.value > 0 }
    }

    @Test func indexes_agreeWithAScan_throughRandomChanges() {
        var generator = SeededGenerator(seed: 78)
        var table = SessionTable()
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        var now = start
        let states: [ParticipantSession.State] = [.started, .incomplete, .complete, .screenedOut]
        for step in 0..<3_000 {
            now += Double(Int.random(in: 0...20, using: &generator))
            let id = "p\(Int.random(in: 0..<400, using: &generator))"
            if Int.random(in: 0..<10, using: &generator) == 0 {
                table.removeValue(forKey: id)
            } else {
                var session = ParticipantSession(
                    participant: id, number: step, group: ["A", "B", "C", nil].randomElement(using: &generator) ?? nil,
                    order: ["first"], tokenDigest: "t\(step)",
                    started: SessionTime.timestamp(now - Double(Int.random(in: 0...3_000, using: &generator))))
                session.state = states.randomElement(using: &generator) ?? .started
                if Bool.random(using: &generator) { session.watchingSince = session.started }
                if Bool.random(using: &generator) { session.step = "framing" }
                if Bool.random(using: &generator) {
                    session.framed = SessionTime.timestamp(now - Double(Int.random(in: 0...600, using: &generator)))
                }
                session.lastSeen =
                    Bool.random(using: &generator) ? SessionTime.timestamp(now) : session.lastSeen
                table[id] = session
            }
            if step % 50 == 0 {
                let sessions = Array(table.values)
                let open = Set((0..<5).map { _ in "p\(Int.random(in: 0..<400, using: &generator))" })
                let readySince = now.timeIntervalSinceReferenceDate - 900
                let watchingSince = now.timeIntervalSinceReferenceDate - 1_800
                let framedSince = now.timeIntervalSinceReferenceDate - StudyLedger.framedHold
                let counts = table.balanceCounts(
                    readySince: readySince, framedSince: framedSince, watchingSince: watchingSince, open: open)
                #expect(
                    counts.filter { $0.value > 0 }
                        == Self.scanned(
                            sessions, readySince: readySince, framedSince: framedSince, watchingSince: watchingSince,
                            open: open),
                    "balance at step \(step)")
                let places = table.placeCounts(framedSince: framedSince, watchingSince: watchingSince, open: open)
                #expect(
                    places.filter { $0.value > 0 }
                        == Self.scanned(
                            sessions, readySince: nil, framedSince: framedSince, watchingSince: watchingSince,
                            open: open),
                    "places at step \(step)")
                #expect(table.watching == sessions.filter { $0.watchingSince != nil }.count)
                #expect(Set(table.waitingIDs) == Set(sessions.filter(SessionTable.isWaiting).map(\.participant)))
                let cutoff = readySince
                #expect(
                    Set(table.waiting(seenBefore: cutoff))
                        == Set(
                            sessions.filter {
                                SessionTable.isWaiting($0)
                                    && (SessionTime.date($0.lastSeen ?? $0.started)?.timeIntervalSinceReferenceDate
                                        ?? .infinity) < cutoff
                            }.map(\.participant)))
                for session in sessions {
                    #expect(table.participant(token: session.tokenDigest) == session.participant)
                }
                #expect(table.participant(token: "t\(step + 1)") == nil)
            }
        }
    }

    @Test func aChange_touchesWhatItSets_andTheLedgerWritesOnlyThat() {
        var ledger = StudyLedger()
        for index in 0..<1_000 {
            ledger.sessions["p\(index)"] = ParticipantSession(
                participant: "p\(index)", number: index + 1, group: nil, order: ["first"], tokenDigest: "t\(index)",
                started: "2026-12-03T21:00:00Z")
        }
        ledger.settle()
        var draft = ledger
        #expect(!draft.differs(from: ledger))
        draft.sessions["p5"]?.step = "framing"
        draft.sessions.removeValue(forKey: "p9")
        draft.sockets["p7"] = SocketHolder(server: "local", socket: UUID())
        let (written, removed) = draft.changes(from: ledger)
        #expect(written.map(\.participant) == ["p5", "p7"])
        #expect(removed == ["p9"])
        #expect(draft.differs(from: ledger))
        #expect(draft.participant(token: "t9") == nil && draft.participant(token: "t5") == "p5")
        // Setting a session to what it was is no change.
        var same = ledger
        same.sessions["p3"] = ledger.sessions["p3"]
        #expect(!same.differs(from: ledger))
    }
}
