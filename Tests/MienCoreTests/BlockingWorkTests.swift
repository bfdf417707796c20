import Foundation
import MienCore
import Testing

@Suite("Blocking work")
struct BlockingWorkTests {
    /// `start` (and so `run`) begins at once while CPU-bound work holds every thread Dispatch gives a concurrent
    /// queue.
    ///
    /// The service's short I/O (a store's write, a recording's rename) must not wait behind detectors compiling
    /// their models. One spinner per core on a concurrent queue spins until `start`'s work raises the flag or 30 s
    /// pass; had `start` used a concurrent queue (as `BlockingWork` did before), it would wait for a spinner to end
    /// and every spinner would run out its time.
    @Test func start_beginsWhileConcurrentWorkHoldsEveryThread() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let busy = DispatchQueue(label: "mien.test.busy", attributes: .concurrent)
        let flag = Locked(false)
        let started = Locked(0)
        let outcomes = Locked<[Bool]>([])
        // Other suites may hold Dispatch's threads for minutes before the spinners get theirs.
        let startedBy = ContinuousClock.now + .seconds(300)
        let done = DispatchGroup()
        for _ in 0..<cores {
            busy.async(group: done) {
                started.withLock { $0 += 1 }
                // 30 s from when every spinner is spinning (until then they wait for each other).
                var deadline: ContinuousClock.Instant?
                var sum = 0.0
                while !flag.withLock({ $0 }) && ContinuousClock.now < (deadline ?? startedBy) {
                    if deadline == nil && started.withLock({ $0 }) == cores { deadline = .now + .seconds(30) }
                    for step in 0..<200_000 { sum += Double(step & 7) }
                }
                let sawFlag = flag.withLock { $0 } && sum >= 0
                outcomes.withLock { $0.append(sawFlag) }
            }
        }
        // This test's own thread waits (a sleeping worker, so Dispatch adds threads for the spinners meanwhile).
        while started.withLock({ $0 }) < cores && ContinuousClock.now < startedBy {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try #require(started.withLock { $0 } == cores, "the spinners never all started")
        BlockingWork.start { flag.withLock { $0 = true } }
        done.wait()
        #expect(outcomes.withLock { $0 } == Array(repeating: true, count: cores), "start waited for a spinner to end")
    }

    /// A lane runs its work one piece at a time: 20 pieces asked for at once, each sleeping 2 ms inside.
    @Test func lane_runsOnePieceAtATime() async {
        let lane = BlockingWork.Lane(label: "mien.test.lane")
        let inside = Locked(0)
        let most = Locked(0)
        let ran = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await lane.run {
                        let now = inside.withLock {
                            $0 += 1
                            return $0
                        }
                        most.withLock { $0 = max($0, now) }
                        Thread.sleep(forTimeInterval: 0.002)
                        inside.withLock { $0 -= 1 }
                        ran.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(ran.withLock { $0 } == 20)
        #expect(most.withLock { $0 } == 1)
    }

    /// What the work throws is what `run` and `bounded` throw.
    @Test func run_andBounded_throwWhatTheWorkThrew() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused.self) { try await BlockingWork.run { throw Refused() } }
        await #expect(throws: Refused.self) { try await BlockingWork.bounded { throw Refused() } }
    }
}
