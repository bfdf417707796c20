import Dispatch

/// Blocking work run off Swift's cooperative pool and awaited: the package's one bridge from async code to calls
/// that block (a detector's start and the stop that waits for its threads, FFmpeg probing a file, file writes).
///
/// Swift's cooperative pool has one thread per core (2 here): a call that blocks in FFmpeg, OpenVINO or the disk
/// for tens or hundreds of milliseconds on it stalls every other task of the process, a service's sockets among
/// them. The work goes to Dispatch's reused worker threads, a few calls per run or request, never per frame. Not a
/// new thread per call: OpenVINO keeps state for each thread that creates inference requests, and a thread per
/// detector start cost `mien serve --studies` 110 MB more at 16 participants (`MienDev bench-study --participants
/// 16,16 --seconds 8`: 418-434 MB against 308-321 MB). Not swift-nio's `NIOThreadPool`: it needs a `Sendable`
/// result, and a run's writers are made here and handed over `sending`.
package enum BlockingWork {
    private static let queue = DispatchQueue(label: "mien.blocking", attributes: .concurrent)

    /// Runs `work` off the cooperative pool and returns what it returned or throws what it threw.
    package static func run<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work`, which cannot fail, off the cooperative pool and returns what it returned.
    package static func run<T>(_ work: @escaping @Sendable () -> sending T) async -> sending T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    /// Starts `work` off the cooperative pool and returns at once.
    package static func start(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
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
