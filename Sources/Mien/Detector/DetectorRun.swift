import Foundation

/// One run of a `Detector`, from `start()` to its end.
///
/// It is made of three parts fixed when it is made: where its frames come from (`FrameFeed`), the two-stage
/// analysis (`DetectorEngine`) and the delivery (`WriterGroup`, the delegate and `results` among its writers).
/// `stop()` cancels it; a new `start()` is a new run.
///
/// A run is not a Swift `Task`: its stages block in OpenVINO and FFmpeg for tens of milliseconds a frame, and
/// blocking the cooperative pool (2 threads on a 2-core machine) would stall every other task of the process,
/// a service's sockets among them. Its threads are its own, and `stop()` waits for them.
final class DetectorRun: Sendable {
    let inbox: FrameInbox
    let engine: DetectorEngine
    let feed: any FrameFeed
    let writers: WriterGroup
    /// The input's name in results and errors (nil: pushed frames without a name).
    let inputName: String?
    /// A resumed stream's last frame already written (`ResumePoint.afterFrame`), nil when nothing is replayed.
    ///
    /// Frames up to it are analysed again but not delivered, so tracking, baselines, filters and episodes
    /// reach the break in the state an uninterrupted run had there.
    let replayUntil: Int?
    /// How often the analysis state is handed to the writers that keep it (nil: never; see `AnalysisSnapshot`).
    let snapshotEvery: Duration?
    private let state: Locked<State>
    /// Entered by every thread of the run, left when it ends: `stop()` waits for all of them.
    private let threads = DispatchGroup()
    /// Entered when the run is made, left once when it has ended and the writers are finished.
    private let ending = DispatchGroup()

    private struct State {
        /// Whether frames are still taken: false once stopped, failed or a file read to its end.
        var open = true
        var ended = false
        /// The faces open at a resumed run's break, reported lost on the first result delivered.
        var lostAtBreak: [Int]
        /// The episode finder (nil for stills, or with episodes off).
        var episodes: EpisodeTracker?
        /// The detector, while `start(holding:)` starts the threads that hold it.
        var owner: Detector?
        /// Snapshots: the first stage's state after a frame, waiting for that frame's result.
        var pending: (frame: Int, locating: DetectorEngine.LocatingState)?
        /// Snapshots: when the last one was taken.
        var lastTaken = ContinuousClock.now
        /// Snapshots: the last frame the first stage took, and whether it located it.
        var lastLocated: (frame: Int, located: Bool)?
        /// Snapshots: the last frame delivered.
        var lastDelivered: (frame: Int, timestamp: Double)?
        /// `stop()` was called: the measuring stage finishes the frames already located, so both stages stop
        /// after the same frame and a last snapshot can be taken there.
        var draining = false
        /// `stop()` was called (the first call stops, later ones wait).
        var stopping = false
    }

    init(
        feed: any FrameFeed, inbox: FrameInbox, engine: DetectorEngine, writers: WriterGroup,
        episodes: EpisodeTracker?, inputName: String?, replayUntil: Int?, lostAtBreak: [Int],
        snapshotEvery: Duration? = nil
    ) {
        self.snapshotEvery = snapshotEvery
        self.feed = feed
        self.inbox = inbox
        self.engine = engine
        self.writers = writers
        self.inputName = inputName
        self.replayUntil = replayUntil
        state = Locked(State(lostAtBreak: lostAtBreak, episodes: episodes))
        ending.enter()
    }

    /// Starts the feed and the analysis.
    ///
    /// - Parameter owner: held by the run's threads until they end (a detector the caller let go of finishes
    ///   its input, and its delegate still hears it, as when the threads were the detector's own).
    func start(holding owner: Detector) {
        state.withLock { $0.owner = owner }
        feed.start(self)
        startAnalysis()
        // Only the threads hold it from here: the detector keeps its last run, so the run must not keep it.
        state.withLock { $0.owner = nil }
    }

    /// Whether frames are still taken.
    var isOpen: Bool { state.withLock { $0.open } }

    /// Takes no more frames (the threads see it at their next frame).
    func close() { state.withLock { $0.open = false } }

    /// Cancels the run and returns at once.
    ///
    /// A `BlockingWork` thread waits for the run's threads and ends it as its feed says (`FrameFeed.stopping`).
    /// Whoever must know when it has ended awaits `ended()` (the Affdex layer waits on `whenEnded`). A second call
    /// does nothing.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            if !state.stopping { state.draining = snapshotEvery != nil }
            return !state.stopping
        }
        guard first else { return }
        close()
        let stopping = feed.stopping
        inbox.close(discarding: stopping.discardsWaiting)
        BlockingWork.start { self.finishStopping(stopping.end) }
    }

    /// Waits for the threads, keeps the last snapshot and ends the run (`stop`'s second half).
    private func finishStopping(_ end: InputEnd) {
        threads.wait()
        keepLastSnapshot()
        self.end(end)
    }

    /// Whether the measuring stage finishes what was located although the run is closed (`State.draining`).
    var drains: Bool { state.withLock { $0.draining } }

    /// Calls `handler` once the run has ended and its writers are finished (at once, on another thread, if it has).
    func whenEnded(_ handler: @escaping @Sendable () -> Void) {
        ending.notify(queue: Self.endings, execute: handler)
    }

    /// Where `whenEnded`'s handlers run (each resumes a task or wakes a waiting thread).
    ///
    /// A serial queue, which Dispatch serves from threads of its own. Not `.global()`: on Linux its threads are Swift's cooperative pool,
    /// where the Affdex layer's `wait()` called from a task may be holding every thread while it waits for this.
    private static let endings = DispatchQueue(label: "mien.run.endings")

    /// Suspends until the run has ended and its writers are finished, blocking no thread.
    func ended() async {
        await withCheckedContinuation { continuation in whenEnded { continuation.resume() } }
    }

    /// Finishes the writers and releases `wait()`, once.
    /// - Parameter readToEnd: a file read to its end (the delegate hears `detectorDidFinishProcessing`).
    func end(_ how: InputEnd, readToEnd: Bool = false) {
        let closing = state.withLock { state -> [EpisodeEvent]? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.episodes?.finish() ?? []
        }
        guard let closing else { return }
        writers.finish(how, episodes: closing, readToEnd: readToEnd)
        // The run's faces are forgotten with it: re-identification's descriptors of lost faces (biometric
        // data) must not outlive their input.
        engine.reset()
        ending.leave()
    }

    /// Ends the run on `error`: the writers finish with it (the delegate hears it, `results` ends).
    func fail(_ error: any Error) {
        close()
        end(.failed(error as? MienError ?? MienError(.internalFailure, "\(error)")))
    }

    /// Forgets all faces, IDs, baselines and timestamps (`Detector.reset()`).
    func reset() {
        inbox.restart()
        engine.reset()
        state.withLock { $0.episodes?.reset() }
    }

    /// Hands one result to everyone who wants it.
    ///
    /// Names the input, closes the faces a resumed run's break left open, finds the episodes, stamps the
    /// latency, then the writers (the delegate and `results` first), and last the caller waiting for it. A
    /// writer that fails ends the run.
    func deliver(_ result: DetectorResult, frame: Frame?, arrival: FrameInbox.Arrival) {
        var result = result
        result.input = result.input ?? inputName
        result.file = result.file ?? frame?.file
        // The second stage's state is read before the run's lock is taken (the locks are never nested).
        let measuring = snapshotEvery != nil && isPendingSnapshot(result.frameIndex) ? engine.measuringSnapshot() : nil
        var snapshot: AnalysisSnapshot?
        state.withLock { state in
            defer {
                if snapshotEvery != nil {
                    snapshot = Self.completeSnapshot(&state, result: result, measuring: measuring)
                    state.lastDelivered = (result.frameIndex, result.timestamp)
                }
            }
            if !state.lostAtBreak.isEmpty {
                result.events = state.lostAtBreak.map { .lost(faceId: $0) } + result.events
                state.lostAtBreak = []
            }
            guard let tracker = state.episodes else { return }
            // A cut ends the old shot's episodes before the new shot's frame is looked at.
            let ended = result.shotCut ? state.episodes?.cut() ?? [] : []
            let found = ended + (state.episodes?.update(&result) ?? [])
            // With episodes off the tracker measures the viewer's activity only: no episode list is reported.
            if tracker.settings.enabled { result.episodes = found }
        }
        // A resumed stream's frames up to the break were analysed again only to restore its state: the
        // stopped run already delivered them (its checkpoint is replayed into the writers).
        if let replayUntil, result.frameIndex <= replayUntil { return }
        result.latency = arrival.instant.duration(to: .now)
        if let failure = writers.write(result, frame: frame) ?? snapshot.flatMap(writers.keep) { fail(failure) }
        arrival.reply?.fulfil(.success(result))
    }

    func startThread(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let owner = state.withLock { $0.owner }
        let thread = Thread {
            withExtendedLifetime(owner) { body() }
            self.threads.leave()
        }
        thread.name = "mien.detector"
        thread.start()
    }
}

extension DetectorRun {
    /// Notes that the first stage took frame `index` (`located`: it went through the stage, rate cap included)
    /// and, when a snapshot is due, keeps the stage's state until that frame's result is delivered.
    ///
    /// Called on the locating thread right after the frame, before the next one is located.
    func noteLocated(_ index: Int, located: Bool) {
        guard let every = snapshotEvery else { return }
        let now = ContinuousClock.now
        let due = state.withLock { state in
            state.lastLocated = (index, located)
            return located && state.pending == nil && now - state.lastTaken >= every
        }
        guard due, let locating = engine.locatingSnapshot() else { return }
        state.withLock {
            $0.pending = (index, locating)
            $0.lastTaken = now
        }
    }

    /// Whether a snapshot waits for the result of frame `index`.
    private func isPendingSnapshot(_ index: Int) -> Bool { state.withLock { $0.pending?.frame == index } }

    /// The snapshot after `result`, when one waits for it; a pending one for an earlier frame (whose result
    /// never came: an unreadable frame) is dropped.
    private static func completeSnapshot(
        _ state: inout State, result: DetectorResult, measuring: FaceMeasurer.State?
    ) -> AnalysisSnapshot? {
        guard let pending = state.pending, pending.frame <= result.frameIndex else { return nil }
        state.pending = nil
        guard pending.frame == result.frameIndex, let measuring else { return nil }
        return AnalysisSnapshot(
            afterFrame: result.frameIndex, timestamp: result.timestamp, locating: pending.locating,
            measuring: measuring, episodes: state.episodes?.snapshot)
    }

    /// After `stop()`: the state after the last frame, when both stages stopped after it (the last frame taken
    /// was located and delivered), handed to the writers that keep one.
    private func keepLastSnapshot() {
        guard snapshotEvery != nil else { return }
        let last = state.withLock { state -> (frame: Int, timestamp: Double)? in
            guard let located = state.lastLocated, located.located, let delivered = state.lastDelivered,
                delivered.frame == located.frame
            else { return nil }
            return delivered
        }
        guard let last, let locating = engine.locatingSnapshot() else { return }
        let measuring = engine.measuringSnapshot()
        let episodes = state.withLock { $0.episodes?.snapshot }
        let snapshot = AnalysisSnapshot(
            afterFrame: last.frame, timestamp: last.timestamp, locating: locating, measuring: measuring,
            episodes: episodes)
        if let failure = writers.keep(snapshot) { fail(failure) }
    }
}
