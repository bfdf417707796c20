import Foundation

/// A value guarded by a pthread mutex (`NSLock`): the package's one lock.
///
/// Used instead of `Synchronization.Mutex` on purpose: on Linux `Mutex` locks with raw futex calls that
/// ThreadSanitizer does not model, so `make sanitize` reported every access to the live frame queue as a
/// race although each one is inside `withLock`. An `NSLock` is a pthread mutex, which TSan understands,
/// and costs the same here (a few locks per frame). One lock type for the whole package means one rule to
/// read: state shared between threads or tasks is a `Locked` value, touched only inside `withLock`, whose
/// body never blocks, awaits or calls out to code that could take the same lock.
///
/// It is `Sendable` for any value, on terms the compiler checks (those of `Mutex`, made stricter): the value is
/// handed in `sending` (nothing outside keeps a reference to it); `withLock`'s body gets it `inout sending`, so it
/// cannot tie the value to anything outside the lock; and what the body returns is `Sendable`, so nothing
/// non-Sendable inside leaks out. A non-Sendable value (the analysis stages' networks, a run's writers) is thereby
/// safe to share; where the compiler cannot see that two values are apart, the use says why
/// (`DetectorEngine`'s two stages).
package final class Locked<Value>: @unchecked Sendable {
    // `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: sending Value) { self.value = value }

    package func withLock<Result: Sendable>(_ body: (inout sending Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
