import Foundation
import Mien

/// What every server of one study shares, as its store keeps it: the participants' sessions (each with its token's
/// digest), the counts of those who never became participants, the consents refused for an ID, and the next
/// participant's number.
///
/// A server changes it only inside its store's transaction (`StudyStore.transact`), so consent uniqueness, group
/// balance, the cap and completion codes are decided on the ledger as it stands, whichever server decides.
struct StudyLedger: Sendable, Equatable {
    var sessions: [String: ParticipantSession] = [:]
    /// Those who never became participants (declined, study full).
    var counts = FieldworkCounts()
    /// Consents refused for an ID that cannot take part, by why (for the researcher).
    var refusedIDs: [String: Int] = [:]
    /// The next participant's number.
    var nextNumber = 1
    /// Who holds each participant's open socket: one at a time, on whichever server.
    var sockets: [String: SocketHolder] = [:]
    /// The servers alive (a heartbeat within the lease) as the store read them for this change.
    ///
    /// Nil: this server only (a folder). Not stored.
    var liveServers: Set<String>?
    /// Bumped by the store at every kept change (dashboards recompute when it moved; a database store also tells
    /// from it whether what a server holds is current).
    var generation = 0

    /// Token digest to participant ID (`reindex()` keeps it current).
    private(set) var tokens: [String: String] = [:]

    /// Rebuilds `tokens` from the sessions (the store calls it after each change).
    mutating func reindex() {
        tokens = Dictionary(
            sessions.values.map { ($0.tokenDigest, $0.participant) }, uniquingKeysWith: { first, _ in first })
    }

    /// A participant's open socket, on a server that is alive.
    func holder(of id: String) -> SocketHolder? {
        guard let holder = sockets[id], liveServers?.contains(holder.server) ?? true else { return nil }
        return holder
    }

    /// What changed from `old` to this ledger: sessions written (new, different, or another socket) and removed.
    func changes(from old: StudyLedger) -> (written: [ParticipantSession], removed: [String]) {
        let written = sessions.values.filter {
            old.sessions[$0.participant] != $0 || old.sockets[$0.participant] != sockets[$0.participant]
        }.sorted { $0.number < $1.number }
        let removed = old.sessions.keys.filter { sessions[$0] == nil }.sorted()
        return (written, removed)
    }
}

/// The server and socket a participant's frames go to, and the server that asked it to close (a page of theirs
/// that came back through another server).
struct SocketHolder: Sendable, Equatable, Codable {
    var server: String
    var socket: UUID
    var replacedBy: String?
}
