import MienCore

/// The messages going back on one live socket, in order, at most `capacity` waiting to be written.
///
/// A client that does not read its messages would otherwise make the service keep every result for it. When
/// `capacity` messages wait, the outbox closes instead: what is queued is still written, then the socket is
/// closed (1008, "reads too slowly"). Messages are never silently skipped: a client either gets every
/// message in order or is told it was too slow.
final class LiveOutbox: Sendable {
    let capacity: Int
    /// What the socket's writing task writes, in order; ends when the session ends or the outbox overflows.
    let messages: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let state = Locked(State())

    private struct State {
        var waiting = 0
        var overflowed = false
        var closed = false
    }

    /// - Parameter capacity: `ServiceOptions.maximumOutgoingMessages`.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        (messages, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
    }

    /// Queues `text` for the socket.
    ///
    /// - Returns: false when it was not queued: the outbox is closed, or it has just overflowed.
    @discardableResult
    func send(_ text: String) -> Bool {
        let queued = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard state.waiting < capacity else {
                state.overflowed = true
                state.closed = true
                return false
            }
            state.waiting += 1
            return true
        }
        if queued {
            continuation.yield(text)
        } else if overflowed {
            continuation.finish()
        }
        return queued
    }

    /// The writing task has written one message.
    func written() {
        state.withLock { $0.waiting = max(0, $0.waiting - 1) }
    }

    /// Messages queued and not yet written.
    var waitingCount: Int { state.withLock { $0.waiting } }

    /// Whether the client read too slowly (the socket is to be closed with 1008).
    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// Ends the messages after those queued (the session is over).
    func close() {
        state.withLock { $0.closed = true }
        continuation.finish()
    }
}
