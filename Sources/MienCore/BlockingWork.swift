import Dispatch

/// Blocking work run off Swift's cooperative pool and awaited: the package's one bridge from async code to calls
/// that block (file writes and their fsync, FFmpeg probing a file, a wait for a run's threads, a detector's start).
///
/// Swift's cooperative pool has one thread per core (2 here): a call that blocks in FFmpeg, OpenVINO or the disk
/// for tens or hundreds of milliseconds on it stalls every other task of the process, a service's sockets among
/// them. On Linux that pool *is* Dispatch's pool for concurrent queues (`DispatchQueue.global()` and any queue made
/// `.concurrent`): work sent there takes the threads async code runs on, and Dispatch adds a thread only about
/// once a second, and only while its workers sleep. Measured: two CPU-bound pieces on a concurrent queue held back a
/// `Task.detached` for their full 4 s, while a serial queue's work ran within 0.1 ms. So:
/// - `run`, `start`: blocking I/O and waits, each piece on a serial queue of its own, which Dispatch serves at once
///   from its overcommit threads (reused while idle, never the pool's).
/// - `bounded`: a detector's start (its models read and compiled, seconds of CPU), on a concurrent queue as
///   before, so that no more starts compute at once than there are cores. They share the pool's threads while
///   they compute. A gate of one permit per core in front of `run` was tried and dropped: a start that blocks
///   (a source slow to open) kept its permit, and a parallel `swift test` held every other start for over 30 s.
///   Not a thread per start either: OpenVINO keeps state for each thread that creates inference requests, and a
///   new thread per detector start cost `mien serve --studies` 110 MB more at 16 participants (`MienDev
///   bench-study --participants 16,16 --seconds 8`: 418-434 MB against 308-321 MB).
///
/// Not swift-nio's `NIOThreadPool`: it needs a `Sendable` result, and a run's writers are made here and handed over
/// `sending`.
package enum BlockingWork {
    /// `bounded`'s queue: concurrent, so Dispatch runs no more of its work at once than there are cores.
    private static let boundedQueue = DispatchQueue(label: "mien.blocking.bounded", attributes: .concurrent)

    /// A serial queue for one piece of work: Dispatch serves it at once from its overcommit threads.
    private static var ownQueue: DispatchQueue { DispatchQueue(label: "mien.blocking") }

    /// Runs `work` off the cooperative pool, started at once, and returns what it returned or throws what it
    /// threw.
    package static func run<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { continuation in
            ownQueue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work`, which cannot fail, off the cooperative pool, started at once, and returns what it returned.
    package static func run<T>(_ work: @escaping @Sendable () -> sending T) async -> sending T {
        await withCheckedContinuation { continuation in
            ownQueue.async { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work`, heavy on the CPU (a detector's models read and compiled), with at most one such piece per core
    /// computing at a time, and returns what it returned or throws what it threw.
    package static func bounded<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { continuation in
            boundedQueue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// A serial lane of blocking work: what runs on it runs one piece at a time, in order, off the cooperative pool
    /// (GRDB's serial writer queue), so work that must not interleave (a store's decide-and-write) holds no lock
    /// over its I/O.
    package final class Lane: Sendable {
        private let queue: DispatchQueue

        package init(label: String) { queue = DispatchQueue(label: label) }

        /// Runs `work` on the lane after what was queued before it, and returns what it returned or throws what
        /// it threw.
        package func run<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { continuation.resume(with: Result { try work() }) }
            }
        }

        /// Runs `work`, which cannot fail, on the lane after what was queued before it.
        package func run<T>(_ work: @escaping @Sendable () -> sending T) async -> sending T {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: work()) }
            }
        }
    }

    /// Starts `work` off the cooperative pool, at once, and returns.
    package static func start(_ work: @escaping @Sendable () -> Void) {
        ownQueue.async(execute: work)
    }

    /// Waits for async work on the calling thread, one of `run`'s (never the cooperative pool's, where the wait
    /// could take the thread the work needs): a blocking job that needs a few answers from the network on its way,
    /// such as an aggregation reading a database recording by recording.
    /// - Throws: what `work` threw.
    package static func awaiting<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw MienError(.internalFailure, "async work ended without a result")
        }
        return try result.get()
    }
}
