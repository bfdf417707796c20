import Foundation
import MienCore

/// How the server ends a socket (once), awaited by the task that says so to the page.
final class Closer: Sendable {
    private let state = Locked<(closed: Bool, end: CollectedStudy.SocketEnd?)>((false, nil))
    private let signal = Completion()

    /// Ends the socket for `end` (nil: it ended by itself; nothing is said).
    ///
    /// The first call counts.
    func close(_ end: CollectedStudy.SocketEnd?) {
        let first = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state = (true, end)
            return true
        }
        if first { signal.signal() }
    }

    var isClosed: Bool { state.withLock { $0.closed } }
    /// Why the server ended it, if it did.
    var end: CollectedStudy.SocketEnd? { state.withLock { $0.end } }

    /// Waits for the end; returns it only when the server ends the socket (nil: it ended by itself).
    func ended() async -> CollectedStudy.SocketEnd? {
        await signal.wait()
        return end
    }
}
