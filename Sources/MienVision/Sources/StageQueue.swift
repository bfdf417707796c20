import Foundation

/// A bounded first-in first-out hand-over between two threads of a pipeline.
///
/// `put` waits while `capacity` items are waiting, so a fast first stage never runs away with memory;
/// `take` waits while the queue is empty. Either side may `close` it: the other side's waiting calls
/// return at once (`put` with false, `take` with nil once the queue is drained), so a stage that stops
/// or fails never leaves the other one blocked.
///
/// Used between the decoding thread and the analysis (`PrefetchingFrameSource`) and between the
/// detector's two analysis stages.
package final class StageQueue<Element: Sendable>: @unchecked Sendable {
    // `items` and `closed` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    /// Most items waiting at once.
    package let capacity: Int

    /// - Parameter capacity: items that may wait (at least 1).
    package init(capacity: Int) { self.capacity = max(capacity, 1) }

    /// Appends `item`, waiting for room.
    ///
    /// - Returns: false (the item dropped) when the queue is closed.
    @discardableResult
    package func put(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The oldest item, waiting for one; nil when the queue is closed and empty.
    package func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Whether `close` has been called.
    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Refuses further items and wakes both sides; items already queued can still be taken.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
