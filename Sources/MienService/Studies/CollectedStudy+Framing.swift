import Foundation
import HTTPTypes
import Logging
import Mien

/// The framing check's socket, and how any socket of a participant is registered as the one open and forgotten.
extension CollectedStudy {
    /// Opens a participant's framing-check socket.
    /// - Throws: `ServiceRefusal` 409 when their session has ended or another socket of theirs is open.
    func beginFraming(_ id: String, socket: OpenSocket) async throws {
        let now = Self.timestamp(clock())
        try await opening(id, socket) {
            try await commit(id) { [self] session, ledger in
                guard session.state == .started else {
                    throw ServiceRefusal(status: .conflict, code: "sessionEnded", message: "this session has ended")
                }
                guard ledger.socketFree(of: id, for: store.server), local.withLock({ $0.open[id] }) == nil else {
                    throw Self.alreadyStreaming
                }
                if session.step == "consent" { session.step = "framing" }
                session.lastSeen = now
                try open(id, socket)
                ledger.sockets[id] = SocketHolder(server: store.server, socket: socket.id)
            }
        }
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

    static let alreadyStreaming = ServiceRefusal(
        status: .conflict, code: "alreadyStreaming", message: "another page of this participant is sending frames")

    static let notFramed = ServiceRefusal(
        status: .conflict, code: "notFramed",
        message: "check your position first: a stimulus starts after the framing check has passed on this page")

    /// A framing check ended: passed (as the server judged it: `FramingJudge`), failed (the page said its try's
    /// time ran out), or neither (nil: the page closed it otherwise, a reload or a refused start, or the server
    /// could not run it; not a failure on the dashboard).
    /// - Parameter look: where they looked at their own picture during a check that passed (their screen's centre).
    func framingEnded(_ id: String, socket: UUID, passed: Bool?, look: (yaw: Double, pitch: Double)? = nil) async {
        closed(id, socket)
        let now = Self.timestamp(clock())
        await record(id, releasing: socket) { session in
            session.lastSeen = now
            switch passed {
            case true:
                session.framed = now
                if let look { session.screenLook = [look.yaw, look.pitch] }
            case false: session.framingFailures += 1
            case nil: break
            }
        }
    }
}
