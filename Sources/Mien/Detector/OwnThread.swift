import Foundation

/// Blocking work run on a thread of its own, awaited from Swift concurrency: the one bridge between the
/// detector's blocking calls (opening a file or camera, loading and compiling networks, waiting for a run's
/// threads) and async code.
///
/// Swift's cooperative pool has one thread per core (2 here): a call that blocks in FFmpeg or OpenVINO for
/// tens or hundreds of milliseconds on it stalls every other task of the process, a service's sockets among
/// them. A thread per call is right for what this carries, a few calls per run, not per frame.
enum OwnThread {
    /// Runs `work` on a new thread and returns what it returned or throws what it threw.
    static func run<T: Sendable>(_ name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = name
            thread.start()
        }
    }

    /// Starts `work` on a new thread and returns at once.
    static func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = name
        thread.start()
    }
}
