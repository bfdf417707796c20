import Foundation

/// Blocking work run off Swift's cooperative pool, awaited from Swift concurrency: the one bridge between the
/// detector's blocking calls (opening a file or camera, loading and compiling networks, waiting for a run's
/// threads) and async code.
///
/// Swift's cooperative pool has one thread per core (2 here): a call that blocks in FFmpeg or OpenVINO for
/// tens or hundreds of milliseconds on it stalls every other task of the process, a service's sockets among
/// them. The work goes to Dispatch's reused worker threads, a few calls per run, never per frame. Not a new
/// thread per call: OpenVINO keeps state for each thread that creates inference requests, and a thread per
/// start cost `mien serve --studies` 110 MB more at 16 participants (`MienDev bench-study --participants
/// 16,16 --seconds 8`: 418-434 MB against 308-321 MB).
enum LifecycleQueue {
    private static let queue = DispatchQueue(label: "mien.detector.lifecycle", attributes: .concurrent)

    /// Runs `work` off the cooperative pool and returns what it returned or throws what it threw.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Starts `work` off the cooperative pool and returns at once.
    static func start(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
