import Foundation
import Mien
import MienTesting
import Synchronization
import Testing

/// Calls `stop()` from inside its callback at frame `stopAt`, as an app's "enough" button handler might.
private final class StoppingDelegate: DetectorDelegate, Sendable {
    let stopAt: Int
    let frames = Mutex<[Int]>([])
    let returned = Mutex(false)

    init(stopAt: Int) { self.stopAt = stopAt }

    func detector(_ detector: Detector, didProcess result: DetectorResult) {
        frames.withLock { $0.append(result.frameIndex) }
        guard result.frameIndex == stopAt else { return }
        detector.stop()
        // Also from a callback: `wait()` must not wait for the thread it is on.
        _ = detector.wait()
        returned.withLock { $0 = true }
    }
}

/// Stops its detector from a write at frame `stopAt` and again from its `finish`, which a stop runs on a thread
/// of its own (not the run's): neither may wait for the run it is part of.
private final class StoppingWriter: ResultWriter, Sendable {
    let stopAt: Int
    let detector = Mutex<Detector?>(nil)
    let finishedWith = Mutex<InputEnd?>(nil)

    init(stopAt: Int) { self.stopAt = stopAt }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        guard result.frameIndex == stopAt, let detector = detector.withLock({ $0 }) else { return }
        detector.stop()
    }

    func finish(_ end: InputEnd) throws {
        guard let detector = detector.withLock({ $0 }) else { return }
        detector.stop()
        _ = detector.wait()
        finishedWith.withLock { $0 = end }
    }

    func fail(_ error: MienError) {}
}

/// A run as a value (`Detector.run(writers:)`): its own writers and end, cancellation, and the traps of the
/// Affdex-style calls that a callback could spring (issue 68).
@Suite("Detector runs", .timeLimit(.minutes(5)))
struct DetectorRunTests {
    func frames(_ count: Int, framesPerSecond: Double = 30) -> DetectorSource {
        .frames(name: "clip", open: { SyntheticFrames(name: "clip", count: count, framesPerSecond: framesPerSecond) })
    }

    @Test func stop_fromADelegateCallback_returns_andTheRunEndsStopped() throws {
        let writer = RecordingWriter()
        let delegate = StoppingDelegate(stopAt: 3)
        let detector = Detector(
            source: frames(400), options: try DetectorOptions(), stages: ScriptedFaces.one().stages, writers: [writer])
        detector.delegate = delegate
        try detector.start()
        // Before issue 68 this deadlocked: stop() waited for the thread the callback ran on.
        #expect(detector.wait() == .stopped)
        #expect(delegate.returned.withLock { $0 })
        #expect(writer.ends == [.stopped])
        let seen = delegate.frames.withLock { $0 }
        #expect(seen.count < 400 && seen.prefix(4) == [0, 1, 2, 3], "\(seen.count) frames")
        #expect(writer.results.map(\.frameIndex) == seen)
    }

    @Test func stop_andWait_fromAWritersWriteAndFinish_return() throws {
        let writer = StoppingWriter(stopAt: 5)
        let detector = Detector(
            source: frames(400), options: try DetectorOptions(), stages: ScriptedFaces.one().stages, writers: [writer])
        writer.detector.withLock { $0 = detector }
        try detector.start()
        // Before the deliveries were marked, finish (on the stopper's thread, not the run's) waited for itself.
        #expect(detector.wait() == .stopped)
        #expect(writer.finishedWith.withLock { $0 } == .stopped)
        writer.detector.withLock { $0 = nil }
    }

    @Test func twoRunsOfOneDetector_eachGetTheirOwnCompleteResults() async throws {
        let detector = Detector(source: frames(12), options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let first = RecordingWriter()
        let second = RecordingWriter()
        #expect(try await detector.run(writers: [first]) == .complete)
        #expect(try await detector.run(writers: [second]) == .complete)
        for writer in [first, second] {
            #expect(writer.info?.frameCount == 12)
            #expect(writer.results.map(\.frameIndex) == Array(0..<12))
            #expect(writer.ends == [.complete] && writer.failures.isEmpty)
            // Each run starts its face IDs over: the one face is 0 in both.
            #expect(Set(writer.results.flatMap { $0.faces?.keys.map { $0 } ?? [] }) == [0])
        }
    }

    @Test func resultStream_isTheRunsResults_inOrder_andEndsWithIt() async throws {
        let detector = Detector(source: frames(9), options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let results = ResultStream()
        async let end = detector.run(writers: [results])
        var indices: [Int] = []
        for try await result in results { indices.append(result.frameIndex) }
        #expect(try await end == .complete)
        #expect(indices == Array(0..<9))
    }

    @Test func resultStream_throwsTheRunsFailure() async throws {
        let detector = Detector(
            source: .frames(name: "clip", open: { SyntheticFrames(name: "clip", count: 10, failing: [4]) }),
            options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let results = ResultStream()
        async let end = detector.run(writers: [results])
        var indices: [Int] = []
        var thrown: MienError?
        do {
            for try await result in results { indices.append(result.frameIndex) }
        } catch let error as MienError {
            thrown = error
        }
        #expect(indices == [0, 1, 2, 3])
        #expect(thrown?.code == .corruptData)
        #expect(try await end.error?.code == .corruptData)
    }

    @Test func cancellingTheTask_stopsTheRun_withItsWritersFinished() async throws {
        // A long input analysed slowly (5 ms a mesh): cancelled long before its end.
        let detector = Detector(
            source: frames(100_000), options: try DetectorOptions(),
            stages: ScriptedFaces.one(meshSeconds: 0.005).stages)
        let writer = RecordingWriter()
        let results = ResultStream()
        let task = Task { try await detector.run(writers: [writer, results]) }
        var seen = 0
        for try await _ in results {
            seen += 1
            if seen == 5 { task.cancel() }
        }
        #expect(try await task.value == .stopped)
        #expect(writer.ends == [.stopped])
        #expect(writer.results.count >= 5 && writer.results.count < 100_000)
        #expect(!detector.isRunning)
    }

    @Test func aTaskCancelledBeforeTheRun_startsNothing() async throws {
        let detector = Detector(source: frames(10), options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let writer = RecordingWriter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await detector.run(writers: [writer])
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(writer.info == nil && writer.results.isEmpty && !detector.isRunning)
    }

    @Test func pushedFrames_goToTheAwaitedRun_untilItIsStopped() async throws {
        let detector = Detector(
            source: .pushedFrames, options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let results = ResultStream()
        let task = Task { try await detector.run(writers: [results]) }
        let source = SyntheticFrames(count: 5)
        // The run is open once `isRunning`; frames pushed before are refused as `.notStarted`.
        while !detector.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        for _ in 0..<5 { _ = try detector.process(#require(try source.nextFrame())) }
        task.cancel()
        var indices: [Int] = []
        for try await result in results { indices.append(result.frameIndex) }
        #expect(indices == Array(0..<5))
        #expect(try await task.value == .complete)
    }

    @Test func aSecondRunWhileOneIsOpen_isRefused() async throws {
        let detector = Detector(
            source: .pushedFrames, options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let task = Task { try await detector.run() }
        while !detector.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        await #expect {
            try await detector.run()
        } throws: {
            ($0 as? MienError)?.code == .wrongRunningMode
        }
        detector.stop()
        #expect(try await task.value == .complete)
    }

    @Test func asyncPush_waitsForRoom_andEveryFrameIsAnalysedInOrder() async throws {
        // 20 ms a mesh: the pusher is far faster than the analysis and must wait for room 18 times.
        let detector = Detector(
            source: .pushed(name: "frames", mode: .video), options: try DetectorOptions(),
            stages: ScriptedFaces.one(meshSeconds: 0.02).stages)
        let results = ResultStream()
        let run = try await detector.start(writers: [results])
        let source = SyntheticFrames(count: 20)
        var indices: [Int] = []
        while let frame = try source.nextFrame() { indices.append(try await run.push(frame)) }
        #expect(indices == Array(0..<20))
        #expect(await run.stop() == .complete)
        var delivered: [Int] = []
        for try await result in results { delivered.append(result.frameIndex) }
        #expect(delivered == Array(0..<20))
    }

    @Test func tryPush_isNilWhenABlockingInboxIsFull_neverWhenItDropsTheOldest() async throws {
        for mode in [RunningMode.video, .liveStream] {
            let detector = Detector(
                source: .pushed(name: "frames", mode: mode), options: try DetectorOptions(),
                stages: ScriptedFaces.one(meshSeconds: 0.05).stages)
            let run = try await detector.start(writers: [])
            let source = SyntheticFrames(count: 10)
            var refused = 0
            while let frame = try source.nextFrame() {
                if try run.tryPush(frame) == nil { refused += 1 }
            }
            if mode == .video {
                #expect(refused > 0, "ten frames at once into an inbox of \(Detector.inboxCapacity)")
            } else {
                #expect(refused == 0)
            }
            await run.stop()
            let late = try #require(try SyntheticFrames(count: 1).nextFrame())
            #expect(mienError { _ = try run.tryPush(late) }?.code == .notStarted, "a stopped run takes no frame")
        }
    }

    @Test func pushingToARunThatReadsItsOwnSource_isRefused() async throws {
        let detector = Detector(
            source: frames(100_000), options: try DetectorOptions(),
            stages: ScriptedFaces.one(meshSeconds: 0.005).stages)
        let run = try await detector.start(writers: [])
        let frame = try #require(try SyntheticFrames(count: 1).nextFrame())
        await #expect {
            try await run.push(frame)
        } throws: {
            ($0 as? MienError)?.code == .wrongRunningMode
        }
        #expect(await run.stop() == .stopped)
    }

    @Test func processInARun_returnsEachPicturesResult_andAPictureThatCannotBeDecodedLeavesTheRunOpen() async throws {
        let detector = Detector(
            source: .pushed(name: "pictures", mode: .image), options: try DetectorOptions(),
            stages: ScriptedFaces.one().stages)
        let results = ResultStream()
        let run = try await detector.start(writers: [results])
        let garbage = EncodedFrame(bytes: [1, 2, 3], timestamp: 0, name: "request body")
        await #expect {
            try await run.process(garbage)
        } throws: {
            ($0 as? MienError)?.input == "request body"
        }
        #expect(run.isOpen, "one bad picture does not end the run")
        let frame = try #require(try SyntheticFrames(count: 1).nextFrame())
        let decoded = try await run.process(EncodedFrame(timestamp: 0) { frame })
        #expect(decoded.frameIndex == 1 && decoded.faces?.count == 1)
        run.reset()
        let again = try await run.process(frame)
        #expect(again.frameIndex == 0 && again.faces?.count == 1, "reset numbers pictures from 0 again")
        #expect(await run.stop() == .complete)
        var delivered: [Int] = []
        for try await result in results where result.processed { delivered.append(result.frameIndex) }
        #expect(delivered == [1, 0])
    }
}
