import Foundation

/// Affdex's detector for Swift 6: one source fixed at creation, the metrics asked for, `start()` /
/// `stop()` / `reset()`, and results two ways: a `DetectorDelegate` and the `results` async sequence.
///
/// ```swift
/// let detector = Detector(
///     source: .file(path: "talk.mp4"),
///     options: try DetectorOptions(maximumFaces: 2, metrics: Set<Metric>.allEmotions.union([.expression(.smile)])))
/// try detector.start()
/// for await result in detector.results where result.processed {
///     for (faceId, face) in result.faces ?? [:] {
///         print(result.timestamp, faceId, face.expressions?[.smile] ?? .nan, face.emotions?[.joy] ?? .nan)
///     }
/// }
/// ```
///
/// Every frame goes through one inbox of `inboxCapacity` frames: the detector's reading thread puts a
/// camera's, a file's or a source's frames there from `start()` on; the caller puts pushed frames there with
/// `push(_:)` (results come to the delegate, `results` and the writers) or `process(_:)` (which also waits
/// for that frame's result and returns it). When the inbox is full the source's `InboxPolicy` decides:
/// files and pushed frames wait for room; cameras and live sources drop the oldest waiting frame, reported
/// as an unprocessed result in its place, so latency stays bounded.
///
/// Frames that wait for room are analysed as a pipeline (locating the faces of frame n + 1 on one thread
/// while frame n is measured on another); live frames on one thread, so a frame waits where a newer one
/// can replace it. Callbacks come in frame order from the measuring thread. Every result also goes to the
/// detector's `ResultWriter`s, which are finished once when the input ends (`wait()` returns then).
///
/// - Important: `results` is one sequence for the detector's life: iterate it from one task. It ends
///   when a file ends or `stop()` is called.
public final class Detector: Sendable {
    /// What the detector reads.
    public let source: DetectorSource
    /// What it measures.
    public let options: DetectorOptions
    /// Every frame's result, in order (processed or not).
    ///
    /// Ends after `stop()` or the end of a file. The sequence is fed from `start()` when the detector reads
    /// its own source and no delegate is set (the `for await` idiom after `start()`), and otherwise from the
    /// moment `results` is first read: read it before `start()` to see every frame. A detector whose results
    /// nobody asks for this way buffers none of them (a delegate-only or `process(_:)`-only program would
    /// otherwise keep every result in memory; found by `make soak`).
    public var results: AsyncStream<DetectorResult> {
        control.withLock { $0.feedsStream = true }
        return stream
    }
    private let stream: AsyncStream<DetectorResult>

    /// Whether results currently go into `results` (for tests).
    var isFeedingResults: Bool { control.withLock { $0.feedsStream } }

    /// Frames that may wait in the inbox; beyond, the source's `InboxPolicy` applies.
    public static let inboxCapacity = 2

    let continuation: AsyncStream<DetectorResult>.Continuation
    private let models: ModelStore?
    private let stages: DetectorStages?
    let writers: WriterGroup
    /// Entered by `start()`, left once when the input has ended and the writers are finished.
    private let ending = DispatchGroup()
    let engine = Locked<DetectorEngine?>(nil)
    /// The current run's episode finder (nil for stills, or with episodes off).
    let episodes = Locked<EpisodeTracker?>(nil)
    /// The current run's inbox (a new one per `start()`).
    let inbox = Locked<FrameInbox?>(nil)
    let control = Locked(Control())
    /// Entered by every thread the detector starts, left when it ends: `stop()` waits for all of them, and so
    /// does a second `stop()` at the same moment.
    private let threads = DispatchGroup()

    /// Mutable lifecycle state.
    struct Control {
        var running = false
        /// Set while `start()` opens the source and loads the models, so a second `start()` at the same
        /// moment is refused instead of starting a second set of threads.
        var starting = false
        var generation = 0
        weak var delegate: (any DetectorDelegate)?
        /// Whether results go into `results` (see there).
        var feedsStream = false
        /// Whether `ending` has been entered and not yet left.
        var awaitingEnd = false
        /// Whether the next delivered result is the first (a resumed run reports the old faces lost on it).
        var firstDelivery = true
        /// Whether the opened source is a folder of pictures.
        var readsFolder = false
        /// A resumed stream's last frame already written (`ResumePoint.afterFrame`), nil when nothing is replayed.
        ///
        /// Frames up to it are analysed again but not delivered, so tracking, baselines, filters and episodes
        /// reach the break in the state an uninterrupted run had there.
        var replayUntil: Int?
    }

    /// A detector for `source`.
    ///
    /// Nothing is opened or loaded until `start()`.
    /// - Parameters:
    ///   - source: where frames come from, and for pushed frames their timing; fixed for the detector's life.
    ///   - options: what is measured, validated when they were made.
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
        let callbacks = CallbackWriter()
        self.writers = WriterGroup(callbacks: callbacks, writers)
        (stream, continuation) = AsyncStream.makeStream(of: DetectorResult.self, bufferingPolicy: .unbounded)
        callbacks.detector = self
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
        let callbacks = CallbackWriter()
        self.writers = WriterGroup(callbacks: callbacks, writers)
        (stream, continuation) = AsyncStream.makeStream(of: DetectorResult.self, bufferingPolicy: .unbounded)
        callbacks.detector = self
    }

    /// Receives found / lost / results / finished / failure callbacks (held weakly).
    public var delegate: (any DetectorDelegate)? {
        get { control.withLock { $0.delegate } }
        set { control.withLock { $0.delegate = newValue } }
    }

    /// Whether `start()` succeeded and `stop()` has not been called.
    public var isRunning: Bool { control.withLock { $0.running } }

    /// Loads the models and opens the source; cameras, files and sources start being read.
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
        let timing: DetectorSource.Timing
        let built: DetectorEngine
        let tracker: EpisodeTracker?
        do {
            opened = try openSource()
            if let opened { try writers.begin(opened.source.info) }
            timing = source.timing(of: opened?.source.info.kind)
            if let stages {
                built = try DetectorEngine(source: source, timing: timing, options: options, stages: stages)
            } else {
                built = try DetectorEngine(
                    source: source, timing: timing, options: options, models: models ?? ModelStore())
            }
            if timing == .stream && options.episodes.enabled && !options.detectionOnly {
                // A resumed stream's episodes are rebuilt by analysing its frames again (see `replayUntil`).
                tracker = try EpisodeTracker(settings: options.episodes, facesReturn: options.reidentification != nil)
            } else {
                tracker = nil
            }
        } catch {
            // Nothing was analysed: no output may be left behind looking like a result.
            writers.abandon(error as? MienError ?? MienError(.internalFailure, "\(error)"))
            throw error
        }
        let pushed = !source.readsItself
        let inbox = FrameInbox(
            capacity: Self.inboxCapacity, policy: source.policy, numbers: pushed,
            checksTime: timing == .stream, name: source.inputName ?? "pushed frame")
        engine.withLock { $0 = built }
        episodes.withLock { $0 = tracker }
        self.inbox.withLock { $0 = inbox }
        let generation = control.withLock { state -> Int in
            if !pushed && state.delegate == nil { state.feedsStream = true }
            state.running = true
            state.generation += 1
            if !state.awaitingEnd {
                state.awaitingEnd = true
                ending.enter()
            }
            state.firstDelivery = true
            state.readsFolder = opened?.source.info.kind == .imageFolder
            // Only sources the detector reads itself can be read again from their start.
            state.replayUntil = timing == .stream && source.readsItself ? options.resume?.afterFrame : nil
            return state.generation
        }
        if let opened { startThread { self.read(opened, into: inbox, generation: generation) } }
        startAnalysis(of: inbox, engine: built, generation: generation)
    }

    /// Stops reading and processing; waits for the detector's threads to end, then ends `results`.
    ///
    /// Frames the detector read itself and has not analysed are abandoned; pushed frames already in the
    /// inbox are analysed first, so no `process(_:)` waits in vain. Calling it again does nothing.
    /// - Important: Call it from your own thread or task, not from inside a delegate callback: callbacks
    ///   run on the detector's threads, which `stop()` waits for.
    public func stop() {
        control.withLock { state in
            state.running = false
            state.generation += 1
        }
        inbox.withLock { $0 }?.close(discarding: source.readsItself)
        threads.wait()
        continuation.finish()
        // Pushed frames end when their caller stops; a source read here ended early.
        end(source.readsItself ? .stopped : .complete)
    }

    /// Waits until the input has ended (the end of a file, a failure, `maximumFrames`, or `stop()`) and the
    /// writers are finished; returns how it ended, a writer's failure included.
    ///
    /// For pushed frames it returns after `stop()`; before `start()` at once, with `.stopped`.
    /// - Important: Not from inside a delegate callback or a writer (they run on the threads this waits for).
    @discardableResult
    public func wait() -> InputEnd {
        ending.wait()
        return writers.end ?? .stopped
    }

    /// Finishes the writers and releases `wait()`, once per run.
    func end(_ how: InputEnd) {
        let leave = control.withLock { state -> Bool in
            guard state.awaitingEnd else { return false }
            state.awaitingEnd = false
            return true
        }
        guard leave else { return }
        let closing = episodes.withLock { $0?.finish() ?? [] }
        writers.finish(how, episodes: closing)
        // The run's faces are forgotten with it: re-identification's descriptors of lost faces (biometric
        // data) must not outlive their input.
        engine.withLock { $0 }?.reset()
        ending.leave()
    }

    /// Forgets all faces, face IDs, baselines and timestamps, as Affdex's `reset`: the next frame starts
    /// from face ID 0 and any timestamp, and pushed frames are numbered from 0 again.
    public func reset() {
        inbox.withLock { $0 }?.restart()
        engine.withLock { $0 }?.reset()
        episodes.withLock { $0?.reset() }
    }

    /// Which optional stages run (for tests: a metric nobody asked for must not cost anything).
    var stagesRunning: (expressions: Bool, affect: Bool) {
        let engine = engine.withLock { $0 }
        return (engine?.runsExpressions ?? false, engine?.runsAffect ?? false)
    }

    func startThread(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread {
            body()
            self.threads.leave()
        }
        thread.name = "mien.detector"
        thread.start()
    }

    func isCurrent(_ generation: Int) -> Bool {
        control.withLock { $0.running && $0.generation == generation }
    }

    static func mienError(_ error: any Error, input: String) -> MienError {
        (error as? MienError)?.naming(input) ?? MienError(.internalFailure, "\(error)", input: input)
    }
}
