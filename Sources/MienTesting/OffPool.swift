import Foundation

/// Blocking work in an async test, run on a Dispatch thread: Swift's cooperative pool has a thread per core (2
/// here), and a test that waits on child processes or a detector on one of them stalls every other test of the
/// run (a fresh-clone CI run once stood still for three minutes, a detector-lifecycle test timing out).
package enum OffPool {
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
