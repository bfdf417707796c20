import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies

/// The framing check's socket, and how any socket of a participant is registered as the one open and forgotten.
extension CollectedStudy {
    /// Opens a participant's framing-check socket.
    /// - Throws: `ServiceRefusal` 409 when their session has ended or another socket of theirs is open; 403
    ///   `studyFull` when the last place toward their group's target went meanwhile (screened out as over quota
    ///   before they do the check).
    func beginFraming(_ id: String, socket: OpenSocket) async throws {
        let date = clock()
        let now = SessionTime.timestamp(date)
        let openHere = Set(local.withLock { $0.open.keys })
        let overQuota = try await opening(id, socket) {
            try await decide(id) { [self] session, ledger -> Bool in
                guard session.state == .started else {
                    if session.reasonCode == .studyFull { throw Self.studyFull }
                    throw ServiceRefusal(status: .conflict, code: "sessionEnded", message: "this session has ended")
                }
                if session.framed == nil,
                    let refused = ledger.placeRefused(id, open: openHere, settings: settings, now: date)
                {
                    ledger.sessions[id] = session
                    ledger.turnAway(id, refused, now: date)
                    session = ledger.sessions[id] ?? session
                    return true
                }
                guard ledger.socketFree(of: id, for: store.server), local.withLock({ $0.open[id] }) == nil else {
                    throw Self.alreadyStreaming
                }
                if session.step == "consent" { session.step = "framing" }
                session.lastSeen = now
                try open(id, socket)
                ledger.sockets[id] = SocketHolder(server: store.server, socket: socket.id)
                return false
            }
        }.decision
        if overQuota {
            Self.logger.info("study \(name): participant #\(session(id)?.number ?? 0) turned away: the group is full")
            throw Self.studyFull
        }
    }

    /// Whether a participant's next socket goes before newcomers in the queue for a slot: those already watching,
    /// and those through the framing check within the last 2 minutes (their first stimulus follows it), unless a
    /// stimulus socket of theirs lost its slot for too few frames within the last 10 minutes (issue 94: tricklers
    /// came back ahead of a real participant's framing check).
    static func goesFirst(_ session: ParticipantSession, now: Date) -> Bool {
        if let lost = SessionTime.date(session.slotLost), now.timeIntervalSince(lost) < 10 * 60 { return false }
        if session.watchingSince != nil { return true }
        return SessionTime.date(session.framed).map { now.timeIntervalSince($0) < 2 * 60 } ?? false
    }

    /// Runs the change that opens `socket`, which is unregistered when the change is not kept.
    @discardableResult
    func opening<Result>(_ id: String, _ socket: OpenSocket, _ change: () async throws -> Result)
        async throws -> Result
    {
        do {
            return try await change()
        } catch {
            closed(id, socket.id)
            throw error
        }
    }

    /// Registers the participant's socket as the one open (the last step of a change that opens one: if the store
    /// then cannot keep the change, the socket is not opened and `commit` throws, so it is unregistered).
    /// - Throws: `ServiceRefusal` 409 when another socket of theirs was opened meanwhile.
    func open(_ id: String, _ socket: OpenSocket) throws {
        try local.withLock { local in
            guard local.open[id] == nil else { throw Self.alreadyStreaming }
            local.open[id] = socket
            local.reserved.removeValue(forKey: id)
        }
    }

    /// Forgets a socket that closed (unless another took its place).
    func closed(_ id: String, _ socket: UUID) {
        local.withLock { local in
            if local.open[id]?.id == socket { local.open.removeValue(forKey: id) }
        }
    }

    static let alreadyStreaming = StudyRefusal.alreadyStreaming

    static let notFramed = StudyRefusal.notFramed

    /// A framing check ended: passed (as the server judged it: `FramingJudge`), failed (the page said its try's
    /// time ran out), or neither (nil: the page closed it otherwise, a reload or a refused start, or the server
    /// could not run it; not a failure on the dashboard).
    /// - Parameters:
    ///   - look: where they looked at their own picture during a check that passed (their screen's centre).
    ///   - neutral: their resting face as the check learnt it, which their stimuli's runs start from.
    func framingEnded(
        _ id: String, socket: UUID, passed: Bool?, look: (yaw: Double, pitch: Double)? = nil,
        neutral: NeutralBaseline.Carried? = nil
    ) async {
        closed(id, socket)
        let date = clock()
        let now = SessionTime.timestamp(date)
        let openHere = Set(local.withLock { $0.open.keys })
        let turned = await recordDeciding(id, releasing: socket) { [settings] session, _, ledger -> Bool in
            session.lastSeen = now
            switch passed {
            case true:
                // The place toward the target is taken here: the first through the check takes the last one.
                if session.framed == nil, session.watchingSince == nil,
                    let refused = ledger.placeRefused(id, open: openHere, settings: settings, now: date)
                {
                    ledger.sessions[id] = session
                    ledger.turnAway(id, refused, now: date)
                    session = ledger.sessions[id] ?? session
                    return true
                }
                session.framed = now
                if let look { session.screenLook = [look.yaw, look.pitch] }
                if let neutral { session.neutral = neutral }
            case false: session.framingFailures += 1
            case nil: break
            }
            return false
        }
        if turned?.decision == true {
            Self.logger.info(
                "study \(name): participant #\(turned?.session.number ?? 0) turned away at the framing check: the group is full"
            )
        }
    }
}
