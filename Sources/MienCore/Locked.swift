import Foundation

/// A value guarded by a pthread mutex (`NSLock`): the package's one lock.
///
/// Used instead of `Synchronization.Mutex` on purpose: on Linux `Mutex` locks with raw futex calls that
/// ThreadSanitizer does not model, so `make sanitize` reported every access to the live frame queue as a
/// race although each one is inside `withLock`. An `NSLock` is a pthread mutex, which TSan understands,
/// and costs the same here (a few locks per frame). One lock type for the whole package means one rule to
/// read: state shared between threads or tasks is a `Locked` value, touched only inside `withLock`, whose
/// body never blocks, awaits or calls out to code that could take the same lock.
package final class Locked<Value>: @unchecked Sendable {
    // `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
