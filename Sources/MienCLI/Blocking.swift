import Foundation
import MienCore

/// Async work the synchronous command line waits for: it runs on Swift's concurrency pool while the calling
/// thread (never one of the pool's) waits (`BlockingWork.awaiting`, the package's one such bridge).
enum Blocking {
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw.
    static func run<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) throws -> Result {
        try BlockingWork.awaiting(work)
    }
}
