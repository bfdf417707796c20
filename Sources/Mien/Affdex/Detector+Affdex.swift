import Foundation

/// The Affdex-style calls, an adapter over the detector's runs (`Detector.Run` is the engine): `start()` runs the
/// first run with the writers the detector was made with, `stop()` / `wait()` / `reset()` act on the current run,
/// `push(_:)` and `process(_:)` (Detector+Pushed.swift) feed it, and the delegate and `results` hear every run
/// (`DetectorCallbacks`). The blocking calls wait through one bridge (`AffdexWait`).
extension Detector {
    /// Every frame's result, in order (processed or not).
    ///
    /// Ends after `stop()` or the end of a file. The sequence is fed from `start()` when the detector reads
    /// its own source and has neither a delegate nor writers (the `for await` idiom after `start()`), and
    /// otherwise from the moment `results` is first read: read it before `start()` to see every frame. A
    /// detector whose results nobody asks for this way buffers none of them (a delegate-only, writers-only or
    /// `process(_:)`-only program would otherwise keep every result in memory: `mien analyze` grew by 5.5 MB a
    /// minute of video until `make soak` ran it).
    public var results: AsyncStream<DetectorResult> {
        affdex.callbacks.feedResults()
        return affdex.callbacks.results
    }

    /// Whether results currently go into `results` (for tests).
    var isFeedingResults: Bool { affdex.callbacks.feedsResults }

    /// Receives found / lost / results / finished / failure callbacks (held weakly).
    public var delegate: (any DetectorDelegate)? {
        get { affdex.callbacks.delegate }
        set { affdex.callbacks.delegate = newValue }
    }

    /// Whether `start()` succeeded and `stop()` has not been called.
    public var isRunning: Bool { lastRun?.isOpen ?? false }

    /// Loads the models and opens the source; cameras, files and sources start being read (Affdex's `start`).
    ///
    /// The first run gets the writers the detector was made with; a later `start()` after `stop()` is a new run
    /// heard by the delegate and `results` only (the writers were finished with the first). `run(writers:)`
    /// gives each run writers of its own.
    /// - Throws: `.wrongRunningMode` when already started; `MienError` for a missing, busy or unreadable
    ///   source (naming it) or a missing or altered model.
    public func start() throws {
        // The writers are the first run's once it has started: a start that fails leaves them told why
        // (`wait()` returns it), a start refused because a run is open never touches them.
        let writers = affdex.firstWriters.withLock { $0 } ?? WriterGroup(callbacks: affdex.callbacks, [])
        // A detector that reads its own source, with nobody listening otherwise, is read the `for await` way.
        let readsItself = if case .pushed = source { false } else { true }
        if readsItself && writers.isEmpty { affdex.callbacks.feedResultsUnlessDelegated() }
        let run = try begin(writers, settings: settings)
        affdex.firstWriters.withLock { if $0 === run.writers { $0 = nil } }
    }

    /// Stops reading and processing; waits for the run's threads to end, then ends `results`.
    ///
    /// Frames the detector read itself and has not analysed are abandoned; pushed frames already in the
    /// inbox are analysed first, so no `process(_:)` waits in vain. Calling it again does nothing.
    ///
    /// From inside a delegate callback or a writer (on the run's own threads, which it would otherwise wait
    /// for) it returns at once: the run takes no more frames, and ends, its writers finished, as soon as the
    /// callback returns.
    public func stop() {
        // Ending the run ends `results`; before any run there is nothing else to end.
        guard let run = lastRun else { return affdex.callbacks.endResults() }
        run.stop()
        // From a callback or a writer (the run's own threads, which ending waits for) it returns at once.
        if !affdex.callbacks.isDelivering { _ = AffdexWait.until { done in run.whenEnded { done(()) } } }
    }

    /// Waits until the input has ended (the end of a file, a failure, `maximumFrames`, or `stop()`) and the
    /// writers are finished; returns how the current or last run ended, a writer's failure included.
    ///
    /// For pushed frames it returns after `stop()`; before `start()` at once, with `.stopped`.
    /// - Important: Not from inside a delegate callback or a writer (they run on the threads this waits for);
    ///   there it returns at once, with `.stopped` while the run is still going.
    @discardableResult
    public func wait() -> InputEnd {
        // Before any run: how a start that failed left the writers (`.failed`), else `.stopped`.
        guard let run = lastRun else { return affdex.firstWriters.withLock { $0?.end } ?? .stopped }
        if !affdex.callbacks.isDelivering { _ = AffdexWait.until { done in run.whenEnded { done(()) } } }
        return run.writers.end ?? .stopped
    }

    /// Forgets all faces, face IDs, baselines and timestamps, as Affdex's `reset`: the next frame starts
    /// from face ID 0 and any timestamp, and pushed frames are numbered from 0 again.
    public func reset() {
        lastRun?.reset()
    }
}
