import Dispatch

/// Runs blocking file work (reading a study's tables, probing an upload, writing a recording, creating a job's
/// files) on Dispatch's threads instead of Swift's cooperative pool, which has one thread per core (2 here).
///
/// No detector work goes through it: analysis runs on each run's own threads and is awaited
/// (`Detector.start(writers:)`, `Detector.Run.process(_:)`). It stays for file work because a job's writers are
/// not `Sendable` (they are handed to the run with `sending`), which swift-nio's `NIOThreadPool` requires.
enum Offload {
    private static let queue = DispatchQueue(label: "mien.service.files", attributes: .concurrent)

    static func run<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
