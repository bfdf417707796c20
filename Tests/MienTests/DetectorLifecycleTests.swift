import Foundation
import Mien
import MienTesting
import Synchronization
import Testing

/// Records delegate callbacks from the detector's threads.
private final class Callbacks: DetectorDelegate, Sendable {
    let frames = Mutex<[Int]>([])
    let found = Mutex<[(frame: Int, id: Int)]>([])
    /// Called with each result, on the detector's thread (to act mid-stream, like `reset()`).
    let onResult: @Sendable (Detector, DetectorResult) -> Void

    init(onResult: @escaping @Sendable (Detector, DetectorResult) -> Void = { _, _ in }) { self.onResult = onResult }

    func detector(_ detector: Detector, didProcess result: DetectorResult) {
        frames.withLock { $0.append(result.frameIndex) }
        found.withLock { list in list += result.found.map { (result.frameIndex, $0) } }
        onResult(detector, result)
    }
}

/// The Detector's lifecycle as a spec: start, stop, restart, reset and release, with scripted faces (no
/// models).
@Suite("Detector lifecycle", .timeLimit(.minutes(10)))
struct DetectorLifecycleTests {
    func frames(_ count: Int, openingDelay: Double = 0) -> DetectorSource {
        .frames(
            name: "clip",
            open: {
                if openingDelay > 0 { Thread.sleep(forTimeInterval: openingDelay) }
                return SyntheticFrames(name: "clip", count: count)
            })
    }

    @Test func stop_beforeStart_andStopTwice_doNothing() throws {
        let writer = RecordingWriter()
        let detector = Detector(
            source: frames(10), options: try DetectorOptions(), stages: ScriptedFaces.one().stages, writers: [writer])
        detector.stop()
        #expect(detector.wait() == .stopped && !detector.isRunning)
        try detector.start()
        #expect(detector.wait() == .complete)
        detector.stop()
        detector.stop()
        #expect(writer.ends == [.complete] && writer.results.count == 10)
    }

    @Test func start_afterStop_analysesAgain() throws {
        let callbacks = Callbacks()
        let detector = Detector(
            source: .pushedFrames, options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        detector.delegate = callbacks
        let source = SyntheticFrames(count: 6)
        try detector.start()
        for _ in 0..<3 { try detector.process(#require(try source.nextFrame())) }
        detector.stop()
        #expect(mienError { try detector.process(#require(try source.nextFrame())) }?.code == .notStarted)
        try detector.start()
        // A new run: frame numbers and face IDs start over, and the face is found again.
        for _ in 0..<2 { try detector.process(#require(try source.nextFrame())) }
        detector.stop()
        #expect(callbacks.frames.withLock { $0 } == [0, 1, 2, 0, 1])
        #expect(callbacks.found.withLock { $0.map(\.id) } == [0, 0])
    }

    @Test func twoStartsAtOnce_startOneRun_andTheOtherIsRefused() async throws {
        // Opening takes 200 ms, so both calls are inside start() together.
        let writer = RecordingWriter()
        let detector = Detector(
            source: frames(20, openingDelay: 0.2), options: try DetectorOptions(),
            stages: ScriptedFaces.one().stages, writers: [writer])
        let outcomes = await withTaskGroup(of: MienError.Code?.self) { group in
            for _ in 0..<2 { group.addTask { mienError { try detector.start() }?.code } }
            var all: [MienError.Code?] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 == nil }.count == 1 && outcomes.contains(.wrongRunningMode), "\(outcomes)")
        #expect(detector.wait() == .complete)
        detector.stop()
        #expect(writer.results.map(\.frameIndex) == Array(0..<20), "one run: every frame once")
    }

    @Test func reset_duringAVideo_startsTheFacesOver_andEveryFrameStillComes() throws {
        let callbacks = Callbacks { detector, result in
            if result.frameIndex == 20 { detector.reset() }
        }
        let detector = Detector(
            source: frames(60), options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        detector.delegate = callbacks
        try detector.start()
        #expect(detector.wait() == .complete)
        detector.stop()
        #expect(callbacks.frames.withLock { $0 } == Array(0..<60))
        let found = callbacks.found.withLock { $0 }
        // Frames already located when reset() came keep the old face; the next one finds it afresh, as ID 0.
        #expect(found.count == 2 && found.allSatisfy { $0.id == 0 }, "\(found)")
        #expect(found.first?.frame == 0 && (21...24).contains(found.last?.frame ?? -1), "\(found)")
    }

    @Test func releasingARunningDetector_letsItFinishItsInput_thenFreesIt() throws {
        let writer = RecordingWriter()
        weak var released: Detector?
        do {
            let detector = Detector(
                source: frames(40), options: try DetectorOptions(), stages: ScriptedFaces.one().stages,
                writers: [writer])
            released = detector
            try detector.start()
        }
        // Its threads hold it until the input ends; then nothing does.
        let deadline = ContinuousClock.now + .seconds(20)
        while released != nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(released == nil, "a released detector must not live on once its input is done")
        #expect(writer.ends == [.complete] && writer.results.count == 40)
    }

    @Test func options_refuseOutOfRangeValues_whenCreated() {
        let detector: [(String, () throws -> Void)] = [
            ("65 faces", { _ = try DetectorOptions(maximumFaces: 65) }),
            ("0 faces", { _ = try DetectorOptions(maximumFaces: 0) }),
            ("NaN rate", { _ = try DetectorOptions(maxProcessRate: .nan) }),
            ("negative rate", { _ = try DetectorOptions(maxProcessRate: -5) }),
            ("NaN confidence", { _ = try DetectorOptions(minimumConfidence: .nan) }),
            ("0 frames", { _ = try RunSettings(maximumFrames: 0) }),
            ("a metric the catalog does not list", { _ = try DetectorOptions(metrics: [.measured("noSuchMetric")]) }),
            (
                "detection only with metrics",
                { _ = try DetectorOptions(detection: DetectionOptions(), metrics: [.valence], detectionOnly: true) }
            ),
        ]
        let tracking: [(String, () throws -> Void)] = [
            ("NaN presence", { _ = try TrackingOptions(minimumPresence: .nan) }),
            ("presence 1.5", { _ = try TrackingOptions(minimumPresence: 1.5) }),
            ("negative interval", { _ = try TrackingOptions(detectionInterval: -1) }),
            ("infinite interval", { _ = try TrackingOptions(detectionInterval: .infinity) }),
            ("zero overlap", { _ = try TrackingOptions(duplicateOverlap: 0) }),
        ]
        let baseline: [(String, () throws -> Void)] = [
            ("quantile 1", { _ = try BaselineOptions(quantile: 1) }),
            ("NaN quantile", { _ = try BaselineOptions(quantile: .nan) }),
            ("zero memory", { _ = try BaselineOptions(memory: 0) }),
            ("infinite warm-up", { _ = try BaselineOptions(warmUp: .infinity) }),
            ("offset 100", { _ = try BaselineOptions(maximumOffset: 100) }),
        ]
        for (what, make) in detector + tracking + baseline {
            #expect(mienError(make)?.code == .invalidOptions, "\(what)")
        }
        #expect(mienError { _ = try DetectorOptions(maximumFaces: 64, maxProcessRate: 0.5) } == nil)
    }
}
