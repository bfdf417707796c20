import Foundation
import MienCore

/// Async work the synchronous command line waits for: it runs on Swift's concurrency pool while the calling
/// thread (never one of the pool's) waits.
enum Blocking {
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw.
    static func run<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) throws -> Result {
        let outcome = Locked<Swift.Result<Result, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Swift.Result<Result, any Error>
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
