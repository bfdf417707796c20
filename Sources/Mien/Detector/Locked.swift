import Foundation

/// A value guarded by a pthread mutex (`NSLock`), shared between the detector's threads.
///
/// Used instead of `Synchronization.Mutex` on purpose: on Linux `Mutex` locks with raw futex calls that
/// ThreadSanitizer does not model, so `make sanitize` reported every access to the live frame queue as a
/// race although each one is inside `withLock`. An `NSLock` is a pthread mutex, which TSan understands,
/// and costs the same here (a few locks per frame).
final class Locked<Value>: @unchecked Sendable {
    // `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
