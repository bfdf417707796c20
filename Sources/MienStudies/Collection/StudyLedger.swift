package import Foundation
import Mien

/// What every server of one study shares, as its store keeps it: the participants' sessions (each with its token's
/// digest), the counts of those who never became participants, the consents refused for an ID, and the next
/// participant's number.
///
/// A server changes it only inside its store's transaction (`StudyStore.transact`), so consent uniqueness, group
/// balance, the cap and completion codes are decided on the ledger as it stands, whichever server decides.
package struct StudyLedger: Sendable, Equatable {
    package var sessions = SessionTable()
    /// Those who never became participants (declined, study full).
    package var counts = FieldworkCounts()
    /// Consents refused for an ID that cannot take part, by why (for the researcher).
    package var refusedIDs: [String: Int] = [:]
    /// The next participant's number.
    package var nextNumber = 1
    /// Who holds each participant's open socket: one at a time, on whichever server.
    package var sockets: [String: SocketHolder] = [:]
    /// The servers alive (a heartbeat within the lease) as the store read them for this change.
    ///
    /// Nil: this server only (a folder). Not stored.
    package var liveServers: Set<String>?
    /// Bumped by the store at every kept change (dashboards recompute when it moved; a database store also tells
    /// from it whether what a server holds is current).
    package var generation = 0

    /// An empty ledger: a new study's.
    package init() {}

    /// The participant whose token has this digest.
    package func participant(token digest: String) -> String? { sessions.participant(token: digest) }

    /// A participant's open socket, on a server that is alive.
    package func holder(of id: String) -> SocketHolder? {
        guard let holder = sockets[id], liveServers?.contains(holder.server) ?? true else { return nil }
        return holder
    }

    /// Whether `server` may open a socket for `id` as far as other servers go: no other live server holds one (a
    /// place held on `server` itself is a socket open there, which that server knows of, or the place kept for a page
    /// of theirs coming back through it: `SocketHolder`).
    package func socketFree(of id: String, for server: String) -> Bool {
        holder(of: id).map { $0.server == server } ?? true
    }

    /// What changed from `old` (a ledger this one was made from): sessions written and removed.
    ///
    /// Written: new, different, or with another socket. Only the sessions touched since `old`, and the sockets, are
    /// compared.
    package func changes(from old: StudyLedger) -> (written: [ParticipantSession], removed: [String]) {
        var candidates = sessions.touched
        for (id, holder) in sockets where old.sockets[id] != holder { candidates.insert(id) }
        for id in old.sockets.keys where sockets[id] == nil { candidates.insert(id) }
        let written = candidates.compactMap { id -> ParticipantSession? in
            guard let session = sessions[id] else { return nil }
            return old.sessions[id] != session || old.sockets[id] != sockets[id] ? session : nil
        }.sorted { $0.number < $1.number }
        let removed = sessions.touched.filter { sessions[$0] == nil && old.sessions[$0] != nil }.sorted()
        return (written, removed)
    }

    /// Whether anything a store keeps differs from `old` (a ledger this one was made from), without comparing
    /// every session.
    package func differs(from old: StudyLedger) -> Bool {
        let (written, removed) = changes(from: old)
        return !written.isEmpty || !removed.isEmpty || counts != old.counts || refusedIDs != old.refusedIDs
            || nextNumber != old.nextNumber || sockets != old.sockets
    }

    /// Starts a new record of touched sessions (a store calls it on the ledger it keeps).
    package mutating func settle() { sessions.settle() }
}

/// The server and socket a participant's frames go to, and the server that asked it to close (a page of theirs
/// that came back through another server).
///
/// When a socket asked to close does, or its server stops beating, the place passes to the server that asked (the
/// old socket's ID, the new `server`) until that server's page opens its own socket: a server killed in between
/// leaves a holder that names it, and the others mark the participant `serverStopped` (before, nothing held the
/// place and the participant stayed `started` for good: `make fleet-check`, once in four runs beside a busy CPU).
/// The server's upkeep lets a place go that no page of its own has used for two rounds.
package struct SocketHolder: Sendable, Equatable, Codable {
    package var server: String
    package var socket: UUID
    package var replacedBy: String?

    package init(server: String, socket: UUID, replacedBy: String? = nil) {
        (self.server, self.socket, self.replacedBy) = (server, socket, replacedBy)
    }
}
