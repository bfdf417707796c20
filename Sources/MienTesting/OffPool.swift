import MienCore

/// Blocking work in an async test, run through `BlockingWork.run` (a Dispatch thread of its own, not
/// `DispatchQueue.global()`, whose threads on Linux are the cooperative pool's): Swift's cooperative pool has a
/// thread per core (2 here), and a test that waits on child processes or a detector on one of them stalls every
/// other test of the run (a fresh-clone CI run once stood still for three minutes, a detector-lifecycle test timing
/// out).
package enum OffPool {
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingWork.run { try work() }
    }
}
