import Foundation
import MienCore

/// Work given up after a deadline: whichever comes first, its result or the deadline, is what the caller gets.
///
/// Not a task group racing a sleep: a group waits for every child, so a call that does not notice cancellation
/// (a connection that stopped answering) would hang it anyway. The work goes on in its own task, cancelled, and
/// whatever it returns late is dropped.
enum Deadline {
    /// - Throws: what `work` throws, or `StudyStoreFailure(message)` when `duration` passed first.
    static func run<Result: Sendable>(
        _ duration: Duration, _ message: String, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = Locked<CheckedContinuation<Result, any Error>?>(nil)
        return try await withCheckedThrowingContinuation { continuation in
            outcome.withLock { $0 = continuation }
            let task = Task {
                let result: Swift.Result<Result, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                outcome.withLock { $0.take() }?.resume(with: result)
            }
            Task {
                try? await Task.sleep(for: duration)  // cancelled only never: the deadline always comes
                if let continuation = outcome.withLock({ $0.take() }) {
                    task.cancel()
                    continuation.resume(throwing: StudyStoreFailure(description: message))
                }
            }
        }
    }
}
