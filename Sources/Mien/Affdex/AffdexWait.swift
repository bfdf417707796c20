import Dispatch
import MienCore

/// The Affdex layer's one bridge to blocking waits: the calling thread waits until something the run hands over
/// from its own threads (a frame's result, the run's end) arrives, through the handler the core offers for it
/// (`Reply.whenFulfilled`, `DetectorRun.whenEnded`).
///
/// Only the synchronous Affdex-style calls (`process(_:)`, `stop()`, `wait()`) wait here. Nothing of the cooperative
/// pool is needed to wake them (the handler runs on the run's thread or Dispatch's), so a caller on the pool waits
/// as the old blocking calls did, without the deadlock a Task-based bridge risks when every pool thread waits.
enum AffdexWait {
    /// Blocks until `arm`'s callback is called, and returns what it was given.
    static func until<Value: Sendable>(_ arm: (@escaping @Sendable (Value) -> Void) -> Void) -> Value? {
        let box = Locked<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        arm { value in
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0 }
    }
}
