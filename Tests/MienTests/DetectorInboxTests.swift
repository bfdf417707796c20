import Foundation
import Mien
import MienTesting
import Testing

/// `Detector.push(_:)` and the one inbox: numbering, the timestamp check, both policies when it is full,
/// and pushing after `stop()`.
@Suite("Detector: the inbox and push")
struct DetectorInboxTests {
    static func frame(at timestamp: Double) throws -> Frame {
        try Frame(width: 320, height: 240, pixels: [UInt8](repeating: 128, count: 320 * 240 * 3), timestamp: timestamp)
    }

    @Test func push_numbersFrames_refusesTimeThatDoesNotAdvance_andGoesOn() throws {
        let writer = RecordingWriter()
        let detector = Detector(
            source: .pushed(name: "loop", mode: .video), options: try DetectorOptions(),
            stages: ScriptedFaces.one().stages, writers: [writer])
        try detector.start()
        #expect(try detector.push(Self.frame(at: 0.0)) == 0)
        #expect(try detector.push(Self.frame(at: 0.1)) == 1)
        for late in [0.1, 0.05] {
            let error = mienError { try detector.push(Self.frame(at: late)) }
            #expect(error?.code == .nonMonotonicTimestamp && error?.input == "loop", "\(String(describing: error))")
        }
        // The refused frames took no number and the detector goes on.
        #expect(try detector.push(Self.frame(at: 0.2)) == 2)
        detector.stop()
        #expect(writer.results.map(\.frameIndex) == [0, 1, 2])
        #expect(writer.results.map(\.timestamp) == [0.0, 0.1, 0.2])
        #expect(writer.results.allSatisfy { $0.processed && $0.input == "loop" && $0.latency != nil })
        #expect(writer.ends == [.complete])
    }

    /// A stream the detector reads itself is checked in the same place as pushed frames: the run fails on the
    /// first frame whose time does not advance, naming the input and the frame, after the frames before it.
    @Test func aReadStreamWhoseTimeStalls_failsOnThatFrame() throws {
        let writer = RecordingWriter()
        let detector = Detector(
            source: .frames(name: "stalling") { SyntheticFrames(count: 10, stalled: [4]) },
            options: try DetectorOptions(), stages: ScriptedFaces.one().stages, writers: [writer])
        try detector.start()
        guard case .failed(let error) = detector.wait() else {
            Issue.record("the run did not fail")
            return
        }
        #expect(error.code == .nonMonotonicTimestamp && error.input == "stalling", "\(error)")
        #expect(error.message.contains("frame 4"), "\(error.message)")
        #expect(writer.results.map(\.frameIndex) == [0, 1, 2, 3])
    }

    @Test func stills_areNotComparedInTime() throws {
        let detector = Detector(
            source: .pushed(mode: .image), options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        try detector.start()
        let first = try detector.process(Self.frame(at: 5))
        let second = try detector.process(Self.frame(at: 1))
        detector.stop()
        #expect(first.frameIndex == 0 && second.frameIndex == 1 && second.processed)
    }

    @Test func fullInbox_block_makesThePusherWait_andEveryFrameIsAnalysed() throws {
        let writer = RecordingWriter()
        // 5 ms a frame: 40 frames pushed at once fill the inbox many times over.
        let detector = Detector(
            source: .pushed(mode: .video), options: try DetectorOptions(),
            stages: ScriptedFaces.one(meshSeconds: 0.005).stages, writers: [writer])
        try detector.start()
        for index in 0..<40 { try detector.push(Self.frame(at: Double(index) / 30)) }
        detector.stop()
        #expect(writer.results.map(\.frameIndex) == Array(0..<40))
        #expect(writer.results.allSatisfy { $0.processed }, "none dropped")
    }

    @Test func fullInbox_dropOldest_neverWaits_andReportsEachDroppedFrameOnce() throws {
        let writer = RecordingWriter()
        // 20 ms a frame while 60 frames are pushed as fast as possible: most must be dropped.
        let detector = Detector(
            source: .pushed(mode: .liveStream), options: try DetectorOptions(maxProcessRate: 1000),
            stages: ScriptedFaces.one(meshSeconds: 0.02).stages, writers: [writer])
        try detector.start()
        let started = ContinuousClock.now
        for index in 0..<60 { try detector.push(Self.frame(at: Double(index) / 30)) }
        let pushing = ContinuousClock.now - started
        detector.stop()
        // Analysing every frame takes at least 60 x 20 ms: a pusher that never waits is done sooner.
        #expect(pushing < .milliseconds(1200), "\(pushing)")
        #expect(writer.results.map(\.frameIndex) == Array(0..<60), "every frame reported once, in order")
        // Analysed: those done while pushing (one per 20 ms), the inbox's 2 and the one in hand at stop().
        let processed = writer.results.filter { $0.processed }.count
        let pushingMilliseconds = Int(
            pushing.components.seconds * 1000 + pushing.components.attoseconds / 1_000_000_000_000_000)
        #expect(
            processed <= pushingMilliseconds / 20 + 1 + Detector.inboxCapacity + 1,
            "\(processed) analysed in \(pushing)")
        #expect(processed < 60, "some dropped")
        // The newest frames were waiting when stop() came: they are analysed, not dropped.
        #expect(writer.results.suffix(2).allSatisfy { $0.processed })
    }

    @Test func process_withDropOldest_returnsItsFramesResult() throws {
        let detector = Detector(
            source: .pushed(mode: .liveStream), options: try DetectorOptions(maxProcessRate: 1000),
            stages: ScriptedFaces.one().stages)
        try detector.start()
        let result = try detector.process(Self.frame(at: 0))
        detector.stop()
        #expect(result.frameIndex == 0 && result.processed && result.faces?.count == 1)
    }

    @Test func push_afterStop_orBeforeStart_orToAFileDetector_isRefused() throws {
        let detector = Detector(
            source: .pushedFrames, options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        #expect(mienError { try detector.push(Self.frame(at: 0)) }?.code == .notStarted)
        try detector.start()
        try detector.push(Self.frame(at: 0))
        detector.stop()
        #expect(mienError { try detector.push(Self.frame(at: 1)) }?.code == .notStarted)
        let file = Detector(
            source: .frames(name: "clip", open: { SyntheticFrames(count: 3) }), options: try DetectorOptions(),
            stages: ScriptedFaces.one().stages)
        #expect(mienError { try file.push(Self.frame(at: 0)) }?.code == .wrongRunningMode)
    }

    @Test(.timeLimit(.minutes(10))) func twoStopsAtOnce_bothReturnOnceTheThreadsHaveEnded() async throws {
        // As a service's DELETE and the job's own end can: both wait for the same threads, neither forever.
        let writer = RecordingWriter()
        let detector = Detector(
            // Longer than any machine analyses before the stops come.
            source: .frames(name: "clip", open: { SyntheticFrames(count: 1_000_000) }), options: try DetectorOptions(),
            stages: ScriptedFaces.one(meshSeconds: 0.005).stages, writers: [writer])
        try detector.start()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask { detector.stop() } }
        }
        #expect(!detector.isRunning)
        #expect(writer.ends == [.stopped], "one ending: \(writer.ends)")
    }
}
