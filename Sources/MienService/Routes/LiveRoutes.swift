import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Mien
import MienCore
import NIOWebSocket
import Prometheus

/// `GET /v1/live` (WebSocket): one `LiveSession` per connection, frames in, one result per frame out.
struct LiveRoutes: RouteGroup {
    let options: ServiceOptions
    let metrics: ServiceMetrics
    let models: ModelStore
    let sessions: SessionLimiter

    var paths: [(String, [HTTPRequest.Method])] { [("/v1/live", [.get])] }

    func register(on router: Router<MienRequestContext>) {
        router.ws("/v1/live") { inbound, outbound, context in
            let query = context.request.uri.queryParameters.map { (String($0.key), String($0.value)) }
            try await live(query: query, inbound: inbound, outbound: outbound, logger: context.logger)
        }
    }

    private func live(
        query: [(String, String)], inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger
    ) async throws {
        guard sessions.open() else {
            let body = ErrorBody(
                code: "tooManySessions", message: "\(options.maximumSessions) live sessions are open; try again later")
            try await outbound.write(.text(LiveMessage.failure(body).text()))
            try await outbound.close(.unknown(1013), reason: "too many sessions")
            return
        }
        defer { sessions.close() }
        let outbox = LiveOutbox(capacity: options.maximumOutgoingMessages)
        let session = LiveSession(
            id: UUID().uuidString.lowercased(), limits: options, models: models, metrics: metrics, outbox: outbox)
        let activity = LastActivity()
        let idle = Duration.seconds(options.idleSeconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in outbox.messages {
                    try await outbound.write(.text(message))
                    outbox.written()
                }
                // A client that left `maximumOutgoingMessages` unread is told so and closed, never served a
                // stream with holes in it.
                if outbox.overflowed {
                    // Stop analysing first: frames already in the detector's inbox would be wasted work.
                    await session.end()
                    try await outbound.close(.policyViolation, reason: "the client reads too slowly")
                }
            }
            group.addTask {
                // Closes a session that has been silent for `idleSeconds`.
                while true {
                    try await Task.sleep(for: .seconds(1))
                    if activity.silence > idle {
                        let body = ErrorBody(code: "idle", message: "no message for \(idle); closing")
                        try await outbound.write(.text(LiveMessage.failure(body).text()))
                        try await outbound.close(.goingAway, reason: "idle")
                        return
                    }
                }
            }
            do {
                let settings = try AnalysisSettings(query: query)
                try await session.begin(settings)
            } catch {
                outbox.send(
                    LiveMessage.failure(
                        (error as? MienError).map(ErrorBody.init)
                            ?? ErrorBody(code: "internalFailure", message: "\(error)")
                    ).text())
            }
            for try await message in inbound.messages(maxSize: options.maximumMessageBytes) {
                activity.touch()
                switch message {
                case .binary(let buffer): session.receiveFrame([UInt8](buffer: buffer))
                case .text(let text): await session.receiveText(text)
                }
            }
            await session.end()
            outbox.close()
            group.cancelAll()
        }
        logger.debug("live session \(session.id) ended")
    }
}

/// Counts open live sessions against the limit (and mirrors the count in the metrics' gauge).
final class SessionLimiter: Sendable {
    private let count = Locked(0)
    private let maximum: Int
    private let metrics: ServiceMetrics

    init(maximum: Int, gauge metrics: ServiceMetrics) {
        self.maximum = maximum
        self.metrics = metrics
    }

    /// Takes a place; false when every place is taken.
    func open() -> Bool {
        let opened = count.withLock { count -> Int? in
            guard count < maximum else { return nil }
            count += 1
            return count
        }
        if let opened { metrics.openSessions.set(Double(opened)) }
        return opened != nil
    }

    func close() {
        metrics.openSessions.set(
            Double(
                count.withLock { count in
                    count -= 1
                    return count
                }))
    }
}

/// When a live socket last received a message (for its idle limit).
final class LastActivity: Sendable {
    private let instant = Locked(ContinuousClock.now)

    func touch() { instant.withLock { $0 = ContinuousClock.now } }

    /// Time since the last message.
    var silence: Duration { ContinuousClock.now - instant.withLock { $0 } }
}
