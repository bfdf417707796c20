import Foundation
import Synchronization

/// Affdex's detector for Swift 6: one source fixed at creation, the metrics asked for, `start()` /
/// `stop()` / `reset()`, and results two ways: a `DetectorDelegate` and the `results` async sequence.
///
/// ```swift
/// let detector = try Detector(
///     source: .videoFile(path: "talk.mp4"),
///     options: DetectorOptions(maximumFaces: 2, metrics: Set<Metric>.allEmotions.union([.expression(.smile)])))
/// try detector.start()
/// for await result in detector.results where result.processed {
///     for (faceId, face) in result.faces ?? [:] {
///         print(result.timestamp, faceId, face.expressions?[.smile] ?? .nan, face.emotions?[.joy] ?? .nan)
///     }
/// }
/// ```
///
/// Cameras, video files and files or folders (`.file`) are read on the detector's own threads from
/// `start()` on; a file is analysed as a pipeline (decoding, locating faces and measuring them on three
/// threads, frame n + 1 located while frame n is measured), and its callbacks come in frame order from the
/// measuring thread. Images and pushed frames are given with `process(_:)`, which returns their result
/// (and also delivers it to the delegate and the sequence). Every result also goes to the detector's
/// `ResultWriter`s, which are finished once when the input ends (`wait()` returns then). A live source keeps at most `liveBufferCapacity` frames waiting; when
/// analysis falls behind, the oldest waiting frame is dropped and reported unprocessed, so latency stays
/// bounded.
///
/// - Important: `results` is one sequence for the detector's life: iterate it from one task. It ends
///   when a video file ends or `stop()` is called.
public final class Detector: Sendable {
    /// What the detector reads.
    public let source: DetectorSource
    /// What it measures.
    public let options: DetectorOptions
    /// Every frame's result, in order (processed or not).
    ///
    /// Ends after `stop()` or the end of a video file. The sequence is fed from `start()` when the source is
    /// a camera, a video file or a live source and no delegate is set (the `for await` idiom after
    /// `start()`), and otherwise from the moment `results` is first read: read it before `start()` to see
    /// every frame. A detector whose results nobody asks for this way buffers none of them (a delegate-only
    /// or `process(_:)`-only program would otherwise keep every result in memory; found by `make soak`).
    public var results: AsyncStream<DetectorResult> {
        control.withLock { $0.feedsStream = true }
        return stream
    }
    private let stream: AsyncStream<DetectorResult>

    /// Whether results currently go into `results` (for tests).
    var isFeedingResults: Bool { control.withLock { $0.feedsStream } }

    /// Frames a live source may have waiting; beyond this the oldest is dropped.
    public static let liveBufferCapacity = 2

    private let continuation: AsyncStream<DetectorResult>.Continuation
    private let models: ModelStore?
    private let stages: DetectorStages?
    private let writers: WriterGroup
    /// Entered by `start()`, left once when the input has ended and the writers are finished.
    private let ending = DispatchGroup()
    private let engine = Locked<DetectorEngine?>(nil)
    private let control = Locked(Control())
    private let live = Locked(LiveQueue())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Mutable lifecycle state.
    private struct Control {
        var running = false
        /// Set while `start()` opens the source and loads the models, so a second `start()` at the same
        /// moment is refused instead of starting a second set of threads.
        var starting = false
        var generation = 0
        weak var delegate: (any DetectorDelegate)?
        var threads = 0
        /// Whether results go into `results` (see there).
        var feedsStream = false
        /// Whether `ending` has been entered and not yet left.
        var awaitingEnd = false
        /// Whether the next delivered result is the first (a resumed run reports the old faces lost on it).
        var firstDelivery = true
    }

    /// Frames read from a live source and not yet reported, in order; dropped frames keep their place
    /// (as an unprocessed result) so results stay in frame order.
    private struct LiveQueue {
        enum Entry {
            case waiting(Frame)
            case dropped(DetectorResult)
        }
        var entries: [Entry] = []
        var ended = false
        /// Why the source ended, reported once the frames read before it are analysed.
        var failure: (any Error)?

        /// Frames still waiting to be analysed.
        var waiting: Int {
            entries.filter { if case .waiting = $0 { true } else { false } }.count
        }
    }

    /// A detector for `source`.
    ///
    /// Nothing is opened or loaded until `start()`.
    /// - Parameters:
    ///   - models: where the models are (default: `ModelStore()`'s lookup).
    ///   - writers: outputs fed every result in frame order, and finished once when the input ends (see
    ///     `ResultWriter`); they serve one run of the detector.
    public init(
        source: DetectorSource, options: DetectorOptions, models: ModelStore? = nil, writers: [any ResultWriter] = []
    ) {
        self.source = source
        self.options = options
        self.models = models
        stages = nil
        self.writers = WriterGroup(writers)
        (stream, continuation) = AsyncStream.makeStream(of: DetectorResult.self, bufferingPolicy: .unbounded)
    }

    /// A detector that finds and tracks faces with `stages` instead of Mien's networks.
    ///
    /// No model is loaded; pose, expressions, emotions and appearance are absent. For tests and other
    /// implementations.
    public init(
        source: DetectorSource, options: DetectorOptions, stages: DetectorStages, writers: [any ResultWriter] = []
    ) {
        self.source = source
        self.options = options
        models = nil
        self.stages = stages
        self.writers = WriterGroup(writers)
        (stream, continuation) = AsyncStream.makeStream(of: DetectorResult.self, bufferingPolicy: .unbounded)
    }

    /// Receives found / lost / results / finished / failure callbacks (held weakly).
    public var delegate: (any DetectorDelegate)? {
        get { control.withLock { $0.delegate } }
        set { control.withLock { $0.delegate = newValue } }
    }

    /// Whether `start()` succeeded and `stop()` has not been called.
    public var isRunning: Bool { control.withLock { $0.running } }

    /// Loads the models and opens the source; cameras and video files start being read.
    /// - Throws: `.wrongRunningMode` when already started; `MienError` for a missing, busy or unreadable
    ///   source (naming it) or a missing or altered model.
    public func start() throws {
        let claimed = control.withLock { state -> Bool in
            guard !state.running, !state.starting else { return false }
            state.starting = true
            return true
        }
        guard claimed else { throw MienError(.wrongRunningMode, "the detector is already started") }
        defer { control.withLock { $0.starting = false } }
        let opened: SourceBox?
        let built: DetectorEngine
        do {
            opened = try openSource()
            if let opened { try writers.begin(opened.source.info) }
            let tracked = opened.map { isStream($0.source.info.kind) }
            if let stages {
                built = try DetectorEngine(source: source, isStream: tracked, options: options, stages: stages)
            } else {
                built = try DetectorEngine(
                    source: source, isStream: tracked, options: options, models: models ?? ModelStore())
            }
        } catch {
            // Nothing was analysed: no output may be left behind looking like a result.
            writers.abandon(error as? MienError ?? MienError(.internalFailure, "\(error)"))
            throw error
        }
        engine.withLock { $0 = built }
        let reads = source.readsItself
        let generation = control.withLock { state -> Int in
            if reads && state.delegate == nil { state.feedsStream = true }
            state.running = true
            state.generation += 1
            if !state.awaitingEnd {
                state.awaitingEnd = true
                ending.enter()
            }
            state.firstDelivery = true
            return state.generation
        }
        guard let opened else { return }
        if source.isLive {
            live.withLock { $0 = LiveQueue() }
            startThread { self.readLive(opened, generation: generation) }
            startThread { self.analyseLive(generation: generation) }
        } else {
            // A two-stage pipeline behind the decoding thread: this one locates faces in frame n + 1
            // while the other measures frame n and delivers it. Two frames may wait between them.
            let located = StageQueue<FileStage>(capacity: 2)
            startThread { self.locateFile(opened, engine: built, into: located, generation: generation) }
            startThread { self.measureFile(engine: built, from: located, generation: generation) }
        }
    }

    /// Stops reading and processing; waits for the detector's threads to end, then ends `results`.
    ///
    /// Calling it again does nothing.
    /// - Important: Call it from your own thread or task, not from inside a delegate callback: callbacks
    ///   run on the detector's threads, which `stop()` waits for.
    public func stop() {
        let threads = control.withLock { state -> Int in
            guard state.running else { return 0 }
            state.running = false
            state.generation += 1
            return state.threads
        }
        wake.signal()
        for _ in 0..<threads { finished.wait() }
        control.withLock { $0.threads = 0 }
        continuation.finish()
        // Pictures and pushed frames end when their caller stops; a source read here ended early.
        end(source.readsItself ? .stopped : .complete)
    }

    /// Waits until the input has ended (the end of a file, a failure, `maximumFrames`, or `stop()`) and the
    /// writers are finished; returns how it ended, a writer's failure included.
    ///
    /// For pictures and pushed frames it returns after `stop()`; before `start()` at once, with `.stopped`.
    /// - Important: Not from inside a delegate callback or a writer (they run on the threads this waits for).
    @discardableResult
    public func wait() -> InputEnd {
        ending.wait()
        return writers.end ?? .stopped
    }

    /// Finishes the writers and releases `wait()`, once per run.
    private func end(_ how: InputEnd) {
        let leave = control.withLock { state -> Bool in
            guard state.awaitingEnd else { return false }
            state.awaitingEnd = false
            return true
        }
        guard leave else { return }
        writers.finish(how)
        // The run's faces are forgotten with it: re-identification's descriptors of lost faces (biometric
        // data) must not outlive their input.
        engine.withLock { $0 }?.reset()
        ending.leave()
    }

    /// Forgets all faces, face IDs, baselines and timestamps, as Affdex's `reset`: the next frame starts
    /// from face ID 0 and any timestamp.
    public func reset() {
        engine.withLock { $0 }?.reset()
    }

    /// Analyses one picture or pushed frame and returns its result (also delivered to the delegate and
    /// `results`).
    /// - Throws: `.notStarted` before `start()`; `.wrongRunningMode` for a camera or video detector;
    ///   `.nonMonotonicTimestamp` when a continuous image or pushed frame does not advance in time.
    @discardableResult
    public func process(_ frame: Frame) throws -> DetectorResult {
        guard !source.readsItself else {
            throw MienError(
                .wrongRunningMode, "this detector reads its own source; process(_:) is for images and pushed frames")
        }
        guard control.withLock({ $0.running }) else {
            throw MienError(.notStarted, "call start() before processing frames")
        }
        guard let engine = engine.withLock({ $0 }) else {
            throw MienError(.notStarted, "call start() before processing frames")
        }
        let (result, analysed) = try engine.process(frame)
        let delivered = deliver(result, frame: analysed)
        // A writer that could not write ended the run; the caller hears it here.
        if let failure = writers.end?.error { throw failure }
        return delivered
    }

    /// Which optional stages run (for tests: a metric nobody asked for must not cost anything).
    var stagesRunning: (expressions: Bool, affect: Bool) {
        let engine = engine.withLock { $0 }
        return (engine?.runsExpressions ?? false, engine?.runsAffect ?? false)
    }

    // MARK: - Reading

    /// A frame source that may be moved to the reading thread.
    private final class SourceBox: @unchecked Sendable {
        // Handed from `start()` to exactly one reading thread, which is then its only user.
        let source: any FrameSource
        init(_ source: any FrameSource) { self.source = source }
    }

    private func openSource() throws -> SourceBox? {
        switch source {
        case .camera(let device, let width, let height):
            return SourceBox(try InputSource.openCamera(device, width: width, height: height))
        case .videoFile(let path):
            return SourceBox(PrefetchingFrameSource(try VideoFileSource.forAnalysis(path: path)))
        case .file(let path, let interval):
            return SourceBox(PrefetchingFrameSource(try InputSource.open(path: path, imageInterval: interval ?? 0)))
        case .liveSource(_, let open):
            return SourceBox(try open())
        case .frames(_, let open):
            return SourceBox(PrefetchingFrameSource(try open()))
        case .discreteImages, .continuousImages, .pushedFrames:
            return nil
        }
    }

    /// Whether the frames of the opened source are tracked: videos and cameras are streams, a picture
    /// stands alone, a folder is a stream when it was given an interval (continuous images).
    private func isStream(_ kind: SourceKind) -> Bool {
        switch kind {
        case .video, .camera, .pushed: return true
        case .image: return false
        case .imageFolder:
            if case .file(_, let interval) = source { return interval != nil }
            if case .frames = source { return true }
            return false
        }
    }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        control.withLock { $0.threads += 1 }
        let thread = Thread {
            body()
            self.finished.signal()
        }
        thread.name = "mien.detector"
        thread.start()
    }

    private func isCurrent(_ generation: Int) -> Bool {
        control.withLock { $0.running && $0.generation == generation }
    }

    /// What the locating stage of a file hands to the measuring stage.
    private enum FileStage: Sendable {
        case frame(DetectorEngine.Step)
        /// A picture of a folder that could not be read or analysed; the folder goes on.
        case skipped(MienError)
        case end
        case failure(MienError)
    }

    /// Files, first stage: read every frame in order (from `options.resume`'s point, up to
    /// `options.maximumFrames`) and locate its faces.
    private func locateFile(
        _ box: SourceBox, engine: DetectorEngine, into queue: StageQueue<FileStage>, generation: Int
    ) {
        // Closing on the way out (stop() included) ends the measuring stage once it has taken what is queued.
        defer { queue.close() }
        let name = box.source.name
        // A folder's pictures are unrelated files: one that fails is reported and the others go on. In a
        // video nothing after a failure can be trusted.
        let goesOn = box.source.info.kind == .imageFolder
        let limit = options.maximumFrames ?? .max
        let resumeAfter = options.resume?.afterFrame ?? -1
        var read = 0
        while isCurrent(generation) && read < limit {
            let item: FileStage
            do {
                guard let frame = try box.source.nextFrame() else { break }
                read += 1
                guard frame.index > resumeAfter else { continue }
                do {
                    item = .frame(try engine.locate(frame))
                } catch {
                    let failure = Self.mienError(error, input: "\(name) frame \(frame.index)")
                    item = goesOn ? .skipped(failure) : .failure(failure)
                }
            } catch {
                let failure = Self.mienError(error, input: name)
                item = goesOn ? .skipped(failure) : .failure(failure)
            }
            // False once the measuring stage has stopped (a failure or stop()).
            guard queue.put(item) else { return }
            if case .failure = item { return }
        }
        queue.put(.end)
    }

    /// Files, second stage: measure and deliver every located frame, then report the end.
    private func measureFile(engine: DetectorEngine, from queue: StageQueue<FileStage>, generation: Int) {
        // Closing on the way out unblocks the first stage whatever ended this one.
        defer { queue.close() }
        while isCurrent(generation), let item = queue.take() {
            switch item {
            case .frame(let step):
                do {
                    deliver(try engine.measure(step), frame: step.frame)
                } catch {
                    fail(error)
                    return
                }
            case .skipped(let error):
                delegate?.detector(self, didSkip: error)
                writers.skipped(error)
            case .end:
                if isCurrent(generation) {
                    delegate?.detectorDidFinishProcessing(self)
                    control.withLock { $0.running = false }
                    continuation.finish()
                    end(.complete)
                }
                return
            case .failure(let error):
                fail(error)
                return
            }
        }
    }

    /// Live sources, reading side: queue every frame (up to `options.maximumFrames`); beyond the capacity
    /// the oldest waiting frame is dropped (its pixels released) and will be reported unprocessed in its
    /// place.
    private func readLive(_ box: SourceBox, generation: Int) {
        let limit = options.maximumFrames ?? .max
        var read = 0
        do {
            while isCurrent(generation) && read < limit, let frame = try box.source.nextFrame() {
                read += 1
                live.withLock { queue in
                    queue.entries.append(.waiting(frame))
                    guard queue.waiting > Self.liveBufferCapacity,
                        let oldest = queue.entries.firstIndex(where: { if case .waiting = $0 { true } else { false } }),
                        case .waiting(let old) = queue.entries[oldest]
                    else { return }
                    queue.entries[oldest] = .dropped(
                        DetectorResult(
                            frameIndex: old.index, timestamp: old.timestamp, width: old.width, height: old.height,
                            faces: nil))
                }
                wake.signal()
            }
        } catch {
            // A camera unplugged mid-stream: the frames it delivered before still get analysed; the
            // failure is reported after them (by the analysing side).
            live.withLock { $0.failure = error }
        }
        live.withLock { $0.ended = true }
        wake.signal()
    }

    /// Live sources, analysing side: take the oldest queued frame, analyse it, repeat.
    private func analyseLive(generation: Int) {
        while isCurrent(generation) {
            let (entry, ended, failure) = live.withLock { queue -> (LiveQueue.Entry?, Bool, (any Error)?) in
                (queue.entries.isEmpty ? nil : queue.entries.removeFirst(), queue.ended, queue.failure)
            }
            guard let entry else {
                if ended {
                    if let failure { fail(failure) } else { end(.complete) }
                    break
                }
                wake.wait()
                continue
            }
            guard case .waiting(let frame) = entry else {
                if case .dropped(let result) = entry { deliver(result, frame: nil) }
                continue
            }
            do {
                if let (result, analysed) = try engine.withLock({ $0 })?.process(frame) {
                    deliver(result, frame: analysed)
                }
            } catch {
                fail(error)
                return
            }
        }
    }

    // MARK: - Delivery

    /// Hands one result to everyone who wants it.
    ///
    /// Names the input, renumbers a resumed run's faces, then calls the delegate in Affdex's order, feeds
    /// the sequence and the writers. A writer that fails stops the input.
    @discardableResult
    private func deliver(_ result: DetectorResult, frame: Frame?) -> DetectorResult {
        var result = result
        result.input = result.input ?? source.inputName
        if let resume = options.resume {
            let first = control.withLock { state -> Bool in
                defer { state.firstDelivery = false }
                return state.firstDelivery
            }
            result = resume.renumbered(result, first: first)
        }
        let delegate = self.delegate
        let returned = Set(result.returned ?? [])
        for id in result.found {
            guard let face = result.faces?[id] else { continue }
            if returned.contains(id) {
                delegate?.detector(self, didFindReturning: face)
            } else {
                delegate?.detector(self, didFind: face)
            }
        }
        delegate?.detector(self, didProcess: result)
        for id in result.lost { delegate?.detector(self, didLoseFace: id) }
        if control.withLock({ $0.feedsStream }) { continuation.yield(result) }
        if let failure = writers.write(result, frame: frame) { fail(failure) }
        return result
    }

    private func fail(_ error: any Error) {
        let mienError = error as? MienError ?? MienError(.internalFailure, "\(error)")
        delegate?.detector(self, didFail: mienError)
        control.withLock { $0.running = false }
        continuation.finish()
        end(.failed(mienError))
    }

    private static func mienError(_ error: any Error, input: String) -> MienError {
        (error as? MienError)?.naming(input) ?? MienError(.internalFailure, "\(error)", input: input)
    }
}
