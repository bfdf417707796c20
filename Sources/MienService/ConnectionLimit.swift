import Foundation
import Logging
import MienCore

/// The connections `mien serve` holds at once: in all, and from one source (an IPv4 address or an IPv6 /64,
/// `AddressRange.limitKey`); a trusted proxy's connections count only toward the whole.
///
/// Why: every connection holds a file descriptor until it closes, and a server out of descriptors can accept
/// nobody, not even the participant whose consent it is waiting for (issue 94: slow bodies against a server limited
/// to 200 files made real consents time out). Past a limit a connection is answered 503 with `Retry-After` at once,
/// which the participant page retries, rather than left to wait for a descriptor that never comes.
package final class ConnectionLimit: Sendable {
    /// Connections open at once, in all.
    let total: Int
    /// Connections open at once from one source (never from a trusted proxy).
    let perSource: Int
    private let trusted: [AddressRange]
    private let logger: Logger
    private let state = Locked(State())

    private struct State {
        var open = 0
        var bySource: [String: Int] = [:]
        var refused = 0
        var lastWarning: ContinuousClock.Instant?
    }

    /// What to tell a refused connection, and why it was refused.
    enum Refusal: Equatable {
        case total, perSource
    }

    init(total: Int, perSource: Int, trusted: [AddressRange], logger: Logger) {
        self.total = total
        self.perSource = perSource
        self.trusted = trusted
        self.logger = logger
    }

    /// Counts a new connection from `peer` (nil: unknown, a Unix socket); a refusal when it is over a limit, and then
    /// it is not counted.
    func open(peer: String?) -> Refusal? {
        let source = peer.flatMap { peer in trusted.contains { $0.contains(peer) } ? nil : AddressRange.limitKey(peer) }
        let refusal = state.withLock { state -> Refusal? in
            let refusal: Refusal? =
                if state.open >= total { .total } else if let source, state.bySource[source, default: 0] >= perSource {
                    .perSource
                } else { nil }
            if refusal != nil {
                state.refused += 1
                return refusal
            }
            state.open += 1
            if let source { state.bySource[source, default: 0] += 1 }
            return nil
        }
        if let refusal { warn(refusal, source: source) }
        return refusal
    }

    /// A counted connection from `peer` closed.
    func close(peer: String?) {
        let source = peer.flatMap { peer in trusted.contains { $0.contains(peer) } ? nil : AddressRange.limitKey(peer) }
        state.withLock { state in
            state.open -= 1
            if let source {
                let left = state.bySource[source, default: 1] - 1
                state.bySource[source] = left > 0 ? left : nil
            }
        }
    }

    /// Connections open now, in all.
    var openCount: Int { state.withLock(\.open) }

    /// Once a minute at most: an operator should hear the server is at its limit, not read it once per connection.
    private func warn(_ refusal: Refusal, source: String?) {
        let now = ContinuousClock.now
        let refused = state.withLock { state -> Int? in
            if let last = state.lastWarning, now - last < .seconds(60) { return nil }
            state.lastWarning = now
            defer { state.refused = 0 }
            return state.refused
        }
        guard let refused else { return }
        switch refusal {
        case .total:
            logger.warning(
                "connections refused (503): \(total) open at once is the limit (--max-connections); \(refused) refused since the last warning"
            )
        case .perSource:
            logger.warning(
                "connections from \(source ?? "?") refused (503): \(perSource) open at once from one address is the limit (--max-connections-per-address); \(refused) refused since the last warning"
            )
        }
    }

    /// The raw response a refused connection reads before it is closed (no request of it is read).
    func response(_ refusal: Refusal) -> String {
        // The service's error body (`ErrorBody`), written by hand: no encoder runs for a connection never read.
        let message =
            refusal == .total
            ? "the server has all the connections it can hold (\(total)); try again in a few seconds"
            : "too many connections from your address (\(perSource) at once); try again in a few seconds"
        let body = #"{"error":{"code":"tooManyConnections","message":"\#(message)"}}"# + "\n"
        return
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    /// The connections a server can hold within its file descriptors: half of what is left of the soft limit after
    /// 64 for the rest of the server (models, recordings being written, the database's connections), since a
    /// streaming participant's connection also writes a recording; 8 at least.
    ///
    /// Why read the limit rather than a fixed number: `ulimit -n` is 1,024 on a desktop and 1,048,576 in some
    /// containers; a fixed limit would be too tight for one and meaningless for the other.
    static func fittingFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(truncatingIfNeeded: RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 512 }
        let files = limit.rlim_cur == rlim_t.max ? 1 << 20 : Int(clamping: limit.rlim_cur)  // rlim_t.max: RLIM_INFINITY
        return max(8, (files - 64) / 2)
    }

    /// Raises the soft limit on file descriptors to the hard limit (at most 65,536).
    ///
    /// As Go's runtime and nginx's `worker_rlimit_nofile` do: the soft limit of 1,024 a shell gives is an old default for `select()`, which this
    /// server does not use. Returns the soft limit now.
    @discardableResult
    package static func raiseFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(truncatingIfNeeded: RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(truncatingIfNeeded: RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
