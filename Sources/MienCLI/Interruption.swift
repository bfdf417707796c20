import ArgumentParser
import Dispatch
import Foundation
import MienCore

/// Ctrl-C (SIGINT) and SIGTERM: a flag the loops check, and callbacks that end the waits in progress
/// (one per running input when inputs run in parallel).
final class Interruption: Sendable {
    /// Shared with the signal handlers, which exist before `self` does.
    private final class Shared: Sendable {
        struct State {
            var requested = false
            /// The first signal that arrived.
            var signal: Int32?
            var callbacks: [Int: @Sendable () -> Void] = [:]
            var nextToken = 0
        }
        let state = Locked(State())

        func fire(_ signalNumber: Int32) {
            let name = signalNumber == SIGTERM ? "SIGTERM" : "interrupted"
            Console.error("\nmien: \(name); completing the output files and each video's snapshot\n")
            let callbacks = state.withLock { state in
                state.requested = true
                state.signal = state.signal ?? signalNumber
                return Array(state.callbacks.values)
            }
            for callback in callbacks { callback() }
        }
    }

    private let shared = Shared()
    // Kept only so the handlers live as long as the run; never touched after `init`.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init() {
        let shared = self.shared
        sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { shared.fire(signalNumber) }
            source.resume()
            return source
        }
    }

    var requested: Bool { shared.state.withLock { $0.requested } }

    /// The exit status of a run a signal stopped: 128 + the signal's number, as a shell reports a process the
    /// signal ended (130 for Ctrl-C, 143 for SIGTERM, the status Slurm's `RequeueExit` and Kubernetes see).
    var exitCode: ExitCode { ExitCode(128 + (shared.state.withLock { $0.signal } ?? SIGINT)) }

    /// Registers what to call on a signal (at once when one has already arrived); returns a token for
    /// `remove`.
    func onRequest(_ callback: @escaping @Sendable () -> Void) -> Int {
        let (token, already) = shared.state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.callbacks[token] = callback
            return (token, state.requested)
        }
        if already { callback() }
        return token
    }

    func remove(_ token: Int) { _ = shared.state.withLock { $0.callbacks.removeValue(forKey: token) } }
}
