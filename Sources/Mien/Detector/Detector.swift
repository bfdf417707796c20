import Foundation

/// Affdex's detector for Swift 6: one source and the metrics asked for, fixed at creation; each analysis of the
/// input is a run, a value with a lifetime.
///
/// ```swift
/// let detector = Detector(
///     source: .file(path: "talk.mp4"),
///     options: try DetectorOptions(maximumFaces: 2, metrics: Set<Metric>.allEmotions.union([.expression(.smile)])))
/// let results = ResultStream()
/// async let end = detector.run(writers: [results])      // cancelling the task stops the run
/// for try await result in results where result.processed {
///     for (faceId, face) in result.faces ?? [:] {
///         print(result.timestamp, faceId, face.expressions?[.smile] ?? .nan, face.emotions?[.joy] ?? .nan)
///     }
/// }
/// _ = try await end
/// ```
///
/// The Affdex-style calls are a thin layer over the same runs: `start()` / `stop()` / `reset()` / `wait()`, a
/// `DetectorDelegate` and the `results` async sequence, with the writers given here serving `start()`'s first
/// run.
///
/// Every frame goes through one inbox of `inboxCapacity` frames: the detector's reading thread puts a
/// camera's, a file's or a source's frames there from `start()` on; the caller puts pushed frames there with
/// `push(_:)` (results come to the delegate, `results` and the writers) or `process(_:)` (which also waits
/// for that frame's result and returns it). When the inbox is full the running mode decides:
/// files and pushed frames wait for room; cameras and live sources drop the oldest waiting frame, reported
/// as an unprocessed result in its place, so latency stays bounded.
///
/// Frames that wait for room are analysed as a pipeline (locating the faces of frame n + 1 on one thread
/// while frame n is measured on another); live frames on one thread, so a frame waits where a newer one
/// can replace it. Callbacks come in frame order from the measuring thread. Every result also goes to the
/// detector's `ResultWriter`s, which are finished once when the input ends (`wait()` returns then).
///
/// Each `run(writers:)` or `start()` makes a run (`DetectorRun`) of three parts fixed for it: where its frames
/// come from (a `FrameFeed`: pushed, a recording, or a live source), the two-stage analysis, and the delivery
/// (the writers, the delegate and `results` first). `stop()` or cancelling the task cancels the run; the next
/// call makes a new one.
///
/// - Important: `results` is one sequence for the detector's life (the Affdex-style way): iterate it from one
///   task. It ends when a file ends or `stop()` is called. A run's own results are a `ResultStream`.
public final class Detector: Sendable {
    /// What the detector reads.
    public let source: DetectorSource
    /// What it measures.
    public let options: DetectorOptions
    /// How `start()`'s runs go: frame limit, resume point (`run(writers:settings:)` takes its own).
    public let settings: RunSettings

    /// Frames that may wait in the inbox; beyond, the running mode decides (`.liveStream` drops the oldest).
    public static let inboxCapacity = 2

    private let analysis: Analysis
    /// One run at a time: whether one is being opened, and the last one begun (open while it takes frames).
    private let runs = Locked(Runs())
    /// The Affdex-style layer's own state (the delegate, `results`, the first `start()`'s writers).
    let affdex: AffdexLayer

    private struct Runs {
        /// `begin` is opening the source and loading the models: a second run at the same moment is refused.
        var opening = false
        var last: DetectorRun?
    }

    /// What does the analysis: Mien's networks (from a model store) or the caller's stages.
    private enum Analysis {
        case models(ModelStore?)
        case stages(DetectorStages)
    }

    /// A detector for `source`.
    ///
    /// Nothing is opened or loaded until `start()`.
    /// - Parameters:
    ///   - source: where frames come from, and for pushed frames their running mode; fixed for the detector's life.
    ///   - options: what is measured, validated when they were made.
    ///   - settings: how `start()`'s runs go (frame limit, resume point; default every frame from the first).
    ///   - models: where the models are (default: `ModelStore()`'s lookup).
    ///   - writers: outputs fed every result in frame order, and finished once when the input ends (see
    ///     `ResultWriter`); they serve one run of the detector.
    public convenience init(
        source: DetectorSource, options: DetectorOptions, settings: RunSettings = .standard, models: ModelStore? = nil,
        writers: sending [any ResultWriter] = []
    ) {
        self.init(source: source, options: options, settings: settings, analysis: .models(models), writers: writers)
    }

    /// A detector that finds and tracks faces with `stages` instead of Mien's networks.
    ///
    /// No model is loaded; pose, expressions, emotions and appearance are absent. For tests and other
    /// implementations.
    public convenience init(
        source: DetectorSource, options: DetectorOptions, settings: RunSettings = .standard, stages: DetectorStages,
        writers: sending [any ResultWriter] = []
    ) {
        self.init(source: source, options: options, settings: settings, analysis: .stages(stages), writers: writers)
    }

    private init(
        source: DetectorSource, options: DetectorOptions, settings: RunSettings, analysis: Analysis,
        writers: sending [any ResultWriter]
    ) {
        self.source = source
        self.options = options
        self.settings = settings
        self.analysis = analysis
        affdex = AffdexLayer(writers: writers)
        affdex.callbacks.attach(self)
    }

    /// Makes and starts a run with `writers` and `settings`, unless one is open or being opened.
    func begin(_ writers: WriterGroup, settings: RunSettings) throws -> DetectorRun {
        try runs.withLock { runs in
            guard !runs.opening && !(runs.last?.isOpen ?? false) else {
                throw MienError(.wrongRunningMode, "the detector is already started")
            }
            runs.opening = true
        }
        let run: DetectorRun
        do {
            run = try makeRun(writers: writers, settings: settings)
        } catch {
            runs.withLock { $0.opening = false }
            throw error
        }
        runs.withLock {
            $0.opening = false
            $0.last = run
        }
        run.start(holding: self)
        return run
    }

    /// The three parts of a run: the opened source's feed, the analysis and the delivery (the writers).
    private func makeRun(writers: WriterGroup, settings: RunSettings) throws -> DetectorRun {
        let opened: SourceReader.Box?
        let mode: RunningMode
        let engine: DetectorEngine
        var tracker: EpisodeTracker?
        let plan: ResumePlan
        do {
            opened = try SourceReader.open(source)
            if let opened { try writers.begin(opened.source.info) }
            mode = source.mode(of: opened?.source.info.kind)
            // Only sources the detector reads itself can be read again from their start.
            plan = ResumePlan(settings, stream: mode.tracks, reads: opened != nil)
            switch analysis {
            case .models(let models):
                engine = try DetectorEngine(
                    source: source, mode: mode, firstFaceId: plan.firstFaceId, options: options,
                    models: models ?? ModelStore())
            case .stages(let stages):
                engine = try DetectorEngine(
                    source: source, mode: mode, firstFaceId: plan.firstFaceId, options: options, stages: stages)
            }
            if mode.tracks && (options.episodes.enabled || options.measuresActivity) && !options.detectionOnly {
                // A resumed stream's episodes are rebuilt by analysing its frames again (see `replayUntil`).
                tracker = try EpisodeTracker(settings: options.episodes, facesReturn: options.reidentification != nil)
            } else {
                tracker = nil
            }
            if mode.tracks, let start = settings.neutralStart { engine.start(from: start) }
            if let restoring = plan.restoring {
                try engine.restore(restoring)
                if let episodes = restoring.episodes { tracker?.restore(episodes) }
            }
        } catch {
            // Nothing was analysed: no output may be left behind looking like a result.
            writers.abandon(error as? MienError ?? MienError(.internalFailure, "\(error)"))
            throw error
        }
        let feed = source.feed(opened: opened, maximumFrames: settings.maximumFrames, plan: plan)
        // Snapshots are of recordings analysed as streams: what a resumed run can read again from a frame.
        let snapshots = feed is RecordingFeed && mode.tracks && !options.detectionOnly
        let inbox = FrameInbox(
            capacity: Self.inboxCapacity, dropsWhenBehind: source.isLive, numbers: opened == nil,
            checksTime: mode.tracks, name: source.inputName ?? "pushed frame")
        return DetectorRun(
            feed: feed, inbox: inbox, engine: engine, writers: writers, episodes: tracker,
            inputName: source.inputName, replayUntil: plan.replayUntil,
            // Pictures that stand alone: IDs continue from `resume.nextFaceId` (the engine's allocator starts
            // there); the faces open at the break are lost on the first frame this run reports.
            lostAtBreak: plan.lostAtBreak,
            snapshotEvery: snapshots ? settings.snapshotInterval.map { .milliseconds(Int64($0 * 1000)) } : nil)
    }

    /// Compiles the networks a detector with `options` loads, ahead of its `start()`, which then loads them
    /// without compiling (the compiled forms are kept for the process's life): for a caller with other work
    /// to do meanwhile, such as replaying a resumed input's finished frames into the writers.
    package static func prepareModels(options: DetectorOptions, models: ModelStore) {
        DetectorEngine.prepare(options: options, models: models)
    }

    /// The last run begun: the Affdex-style calls' current run.
    var lastRun: DetectorRun? { runs.withLock { $0.last } }

    /// Which optional stages run (for tests: a metric nobody asked for must not cost anything).
    var stagesRunning: (expressions: Bool, affect: Bool) {
        let engine = lastRun?.engine
        return (engine?.runsExpressions ?? false, engine?.runsAffect ?? false)
    }
}
