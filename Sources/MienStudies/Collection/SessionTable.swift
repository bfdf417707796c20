import Foundation
import HashTreeCollections
import Mien

/// A study's sessions by participant ID, with the indexes a consent reads kept as each session is set, so that a
/// consent's cost does not grow with the study (issue 78: 192 ms at 1,000 sessions, 73 ms at 10,000, when every
/// consent copied, compared and rescanned them all).
///
/// The maps are persistent hash tries (`TreeDictionary`): a change copies the path to one entry, not the table, so a
/// store can keep the ledger as it was beside the draft of a change, and readers can hold it, at no cost.
package struct SessionTable: Sendable, Equatable {
    private(set) var byID: TreeDictionary<String, ParticipantSession> = [:]
    /// Token digest to participant ID.
    private(set) var tokens: TreeDictionary<String, String> = [:]
    /// Sessions that started watching (the study's cap counts them).
    package private(set) var watching = 0
    /// Consents that have shown no camera yet, and when each was last seen (seconds since the reference date; nil
    /// when its time cannot be read): what `expireConsents` looks through.
    private(set) var waiting: TreeDictionary<String, Double?> = [:]
    /// What group balance reads of each session that can count for it (`BalanceMark`).
    private(set) var balance: TreeDictionary<String, BalanceMark> = [:]
    /// Complete sessions per group.
    private var complete: [String: Int] = [:]
    /// The other marks by group and kind, by when they were seen (`SeenWindow`).
    private var seen: [BalanceMark.Key: SeenWindow] = [:]
    /// IDs set or removed since `settle()`: every session that changed is among them (a store writes these only).
    package private(set) var touched: Set<String> = []

    package init() {}

    package init(_ sessions: some Sequence<ParticipantSession>) {
        for session in sessions { self[session.participant] = session }
        touched = []
    }

    package subscript(id: String) -> ParticipantSession? {
        get { byID[id] }
        set {
            let old = if let newValue { byID.updateValue(newValue, forKey: id) } else { byID.removeValue(forKey: id) }
            unindex(old)
            if let newValue { index(newValue) }
            touched.insert(id)
        }
    }

    package var values: some Collection<ParticipantSession> { byID.values }
    package var keys: some Collection<String> { byID.keys }
    package var waitingIDs: some Collection<String> { waiting.keys }

    /// Consents waiting for a camera that were last seen before `time` (seconds since the reference date).
    package func waiting(seenBefore time: Double) -> [String] {
        waiting.compactMap { id, seen in (seen ?? .infinity) < time ? id : nil }
    }

    /// The participant whose token has this digest.
    package func participant(token digest: String) -> String? { tokens[digest] }
    package var count: Int { byID.count }
    package var isEmpty: Bool { byID.isEmpty }

    @discardableResult
    package mutating func removeValue(forKey id: String) -> ParticipantSession? {
        let old = byID[id]
        if old != nil { self[id] = nil }
        return old
    }

    /// Forgets every session (each is marked touched, so a store sees them removed).
    package mutating func removeAll() {
        for id in byID.keys { touched.insert(id) }
        let touched = touched
        self = SessionTable()
        self.touched = touched
    }

    /// Starts a new record of what is touched (the store calls it once a change is kept).
    package mutating func settle() { touched = [] }

    /// The sessions as they are: the indexes and the record of changes are derived from them.
    package static func == (left: SessionTable, right: SessionTable) -> Bool { left.byID == right.byID }

    private mutating func index(_ session: ParticipantSession) {
        tokens[session.tokenDigest] = session.participant
        if session.watchingSince != nil { watching += 1 }
        if Self.isWaiting(session) {
            waiting[session.participant] = .some(
                SessionTime.date(session.lastSeen ?? session.started)?.timeIntervalSinceReferenceDate)
        }
        guard let mark = BalanceMark(session) else { return }
        balance[session.participant] = mark
        if mark.kind == .complete {
            complete[mark.group, default: 0] += 1
        } else if let time = mark.seen {
            seen[mark.key, default: SeenWindow()].insert(session.participant, seen: time)
        }
    }

    private mutating func unindex(_ session: ParticipantSession?) {
        guard let session else { return }
        if tokens[session.tokenDigest] == session.participant { tokens[session.tokenDigest] = nil }
        if session.watchingSince != nil { watching -= 1 }
        waiting[session.participant] = nil
        guard let mark = balance.removeValue(forKey: session.participant) else { return }
        if mark.kind == .complete {
            complete[mark.group, default: 0] -= 1
        } else if let time = mark.seen {
            seen[mark.key]?.remove(session.participant, seen: time)
        }
    }

    /// Per group, the sessions that count for balance (`BalanceMark`): complete, consented and seen since
    /// `readySince`, through the framing check since `framedSince`, seen since `watchingSince` once watching, or
    /// any of them with a socket open (`open`).
    ///
    /// Each kind is always asked with its own threshold (a `SeenWindow` retires what lies before the last threshold
    /// it was asked for), hence `framedSince` here as for `placeCounts`.
    package mutating func balanceCounts(
        readySince: Double, framedSince: Double, watchingSince: Double, open: Set<String>
    )
        -> [String: Int]
    {
        counts([.complete: 0, .consented: readySince, .framed: framedSince, .watching: watchingSince], open: open)
    }

    /// Per group, the places taken toward a target; a consent alone takes none.
    ///
    /// Complete; through the framing check since `framedSince` and not yet watching; watching and seen since
    /// `watchingSince`; or either of the last two with a socket open.
    package mutating func placeCounts(framedSince: Double, watchingSince: Double, open: Set<String>) -> [String: Int] {
        counts([.complete: 0, .framed: framedSince, .watching: watchingSince], open: open)
    }

    /// Per group, the sessions of the kinds given, each seen since its kind's threshold (`.complete`: always), or
    /// with a socket open.
    ///
    /// Constant in the number of sessions (but for the sockets open): counts kept as sessions are set, and times
    /// that have lapsed retired from `SeenWindow`s (hence `mutating`; the thresholds only move forward).
    private mutating func counts(_ kinds: [BalanceMark.Kind: Double], open: Set<String>) -> [String: Int] {
        var counts = kinds[.complete] == nil ? [:] : complete
        for key in Array(seen.keys) {
            guard let since = kinds[key.kind] else { continue }
            counts[key.group, default: 0] += seen[key]?.count(since: since) ?? 0
        }
        for id in open {
            guard let mark = balance[id], mark.kind != .complete, let since = kinds[mark.kind] else { continue }
            if (mark.seen ?? -.infinity) < since { counts[mark.group, default: 0] += 1 }
        }
        return counts
    }

    /// Consented, and no camera, framing or stimulus since (the only sessions a consent's expiry can remove).
    package static func isWaiting(_ session: ParticipantSession) -> Bool {
        session.state == .started && session.step == "consent" && session.stimuli.isEmpty && session.attempts.isEmpty
    }
}
