import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies

/// How every change reaches the study's store: kept before the participant is told (`commit`), or kept in this
/// server's view even when it cannot be stored (`record`, a change that takes something away).
extension CollectedStudy {
    /// Changes a participant's session in the store's transaction: kept (written) before it is applied, so a
    /// participant is never told something the store does not hold; `change` may refuse by throwing.
    /// - Returns: the session kept.
    /// - Throws: what `change` throws, `ServiceRefusal` 401 for an unknown participant, or 503 when the store
    ///   cannot keep it (logged with the cause; the participant is told only that the server cannot save now).
    @discardableResult
    func commit(
        _ id: String, _ change: @escaping @Sendable (inout ParticipantSession, inout StudyLedger) throws -> Void
    ) async throws -> ParticipantSession {
        try await decide(id, change).session
    }

    /// `commit`, for a change that also says what it decided.
    func decide<Decision: Sendable>(
        _ id: String, _ change: @escaping @Sendable (inout ParticipantSession, inout StudyLedger) throws -> Decision
    ) async throws -> (session: ParticipantSession, decision: Decision) {
        try await kept {
            try await store.transact { ledger in
                guard var session = ledger.sessions[id] else {
                    throw ServiceRefusal(status: .unauthorized, code: "unauthorized", message: "no such participant")
                }
                let decision = try change(&session, &ledger)
                ledger.sessions[id] = session
                return (session, decision)
            }
        }
    }

    /// Runs a store transaction, a failure to keep it logged and turned into what the participant is told.
    func kept<Result>(_ transaction: () async throws -> Result) async throws -> Result {
        do {
            return try await transaction()
        } catch let failure as StudyStoreFailure {
            Self.logger.error("study \(name): a change cannot be saved in \(store.description): \(failure)")
            throw Self.unavailable
        }
    }

    /// Applies `change`, kept in this server's view even when the store cannot keep it (a failure is logged): it
    /// takes something away, and the participant must not be able to act on the state they had.
    /// - Returns: the session, nil for a participant deleted meanwhile.
    @discardableResult
    func record(
        _ id: String, releasing socket: UUID? = nil, _ change: @escaping @Sendable (inout ParticipantSession) -> Void
    ) async -> ParticipantSession? {
        await recordDeciding(id, releasing: socket) { session, _ in change(&session) }?.session
    }

    /// Where a socket that closed stands with its session when its end is recorded.
    enum Standing: Sendable, Equatable {
        /// It is the session's socket (or none is recorded): its end says where the participant is.
        case speaks
        /// Their page came back through another server, which marked it to be given up: its measurement counts,
        /// but the participant goes on there (before, a stopped server's `restarting` end, recorded after the page
        /// had come back, marked them incomplete, and their next stimulus met `sessionEnded`: fleet-faults seed 7).
        case wentOn
        /// Another socket of theirs holds the session now (a newer attempt): nothing of its end is theirs.
        case superseded
    }

    /// `record`, for a change that also says what it decided.
    /// - Parameter socket: the participant's socket that closed: no longer theirs (unless another took its place);
    ///   `change` is told where it stands (`Standing`; `.speaks` without one).
    func recordDeciding<Decision: Sendable>(
        _ id: String, releasing socket: UUID? = nil,
        _ change: @escaping @Sendable (inout ParticipantSession, Standing) -> Decision
    ) async -> (session: ParticipantSession, decision: Decision)? {
        await recordDeciding(id, releasing: socket) { session, standing, _ in change(&session, standing) }
    }

    /// `recordDeciding`, for a change that also reads or changes the rest of the ledger (a place toward a target).
    func recordDeciding<Decision: Sendable>(
        _ id: String, releasing socket: UUID? = nil,
        _ change: @escaping @Sendable (inout ParticipantSession, Standing, inout StudyLedger) -> Decision
    ) async -> (session: ParticipantSession, decision: Decision)? {
        let here = store.server
        let (result, failure) = await store.apply { ledger -> (ParticipantSession, Decision)? in
            guard var session = ledger.sessions[id] else { return nil }  // deleted meanwhile
            let standing: Standing =
                switch (socket, ledger.sockets[id]) {
                case (nil, _), (_, nil): .speaks
                case (let socket?, let holder?) where holder.socket == socket:
                    // Its place passed to another server (taken for gone meanwhile, `upkeep`): they went on there.
                    holder.replacedBy == nil && holder.server == here ? .speaks : .wentOn
                default: .superseded
                }
            let decision = change(&session, standing, &ledger)
            ledger.sessions[id] = session
            if let socket, let holder = ledger.sockets[id], holder.socket == socket, holder.server == here {
                // Asked to close by the server their page came back through: the place is that server's now.
                if let taker = holder.replacedBy {
                    ledger.sockets[id] = SocketHolder(server: taker, socket: socket)
                } else {
                    ledger.sockets.removeValue(forKey: id)
                }
            }
            return (session, decision)
        }
        if let failure {
            Self.logger.error(
                "study \(name): participant #\(result?.0.number ?? 0)'s session cannot be saved in \(store.description): \(failure)"
            )
        }
        return result.map { (session: $0.0, decision: $0.1) }
    }

    /// What a participant is told when the study's store cannot be written: no path, no cause.
    static let unavailable = ServiceRefusal(
        status: .serviceUnavailable, code: "notSaved",
        message: "the study's server cannot save anything at the moment; please try again in a few minutes")
}
