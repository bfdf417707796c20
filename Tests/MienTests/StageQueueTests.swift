import Foundation
import MienVision
import Testing

@testable import Mien

@Suite("Pipeline hand-over between threads", .timeLimit(.minutes(10)))
struct StageQueueTests {
    @Test func itemsArriveInOrder_acrossThreads_andTheProducerWaitsForRoom() async {
        let queue = StageQueue<Int>(capacity: 2)
        let produced = Locked(0)
        let producer = Thread {
            for i in 0..<100 {
                queue.put(i)
                produced.withLock { $0 = i + 1 }
            }
            queue.close()
        }
        producer.start()
        // The producer fills the queue (it did run), then waits for room instead of running ahead.
        #expect(await eventually { produced.withLock { $0 } >= 2 }, "the producer put the first items")
        try? await Task.sleep(for: .milliseconds(100))
        #expect((2...3).contains(produced.withLock { $0 }), "at most capacity items queued (+1 being put)")
        var received: [Int] = []
        while let item = queue.take() { received.append(item) }
        #expect(received == Array(0..<100))
    }

    @Test func closing_wakesAWaitingProducer_andAWaitingConsumer() async {
        let full = StageQueue<Int>(capacity: 1)
        full.put(1)
        let putResult = Locked<Bool?>(nil)
        let producer = Thread {
            let accepted = full.put(2)  // outside the lock: the test reads it while this waits
            putResult.withLock { $0 = accepted }
        }
        producer.start()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(putResult.withLock { $0 } == nil, "blocked while full")
        full.close()
        #expect(await eventually { putResult.withLock { $0 } != nil })
        #expect(putResult.withLock { $0 } == false, "a closed queue refuses the item")
        #expect(full.take() == 1, "what was queued before closing is still delivered")
        #expect(full.take() == nil)

        let empty = StageQueue<Int>(capacity: 1)
        let taken = Locked<Int??>(nil)
        let consumer = Thread {
            let item = empty.take()
            taken.withLock { $0 = .some(item) }
        }
        consumer.start()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(taken.withLock { $0 } == nil, "blocked while empty")
        empty.close()
        #expect(await eventually { taken.withLock { $0 } != nil })
        #expect(taken.withLock { $0 } == .some(nil), "woken with nothing")
    }

    /// Polls `condition` for up to 5 seconds (threads may be slow to wake on a loaded machine).
    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
