/// Runs as values: `run(writers:)` and `start(writers:)`, the async API (the Affdex-style `start()` / `stop()` /
/// `wait()` are a thin layer over the same runs).
extension Detector {
    /// Analyses the input in a run of its own with `writers`, and returns how it ended once they are finished.
    ///
    /// ```swift
    /// let detector = Detector(source: .file(path: "talk.mp4"), options: try DetectorOptions())
    /// let results = ResultStream()
    /// async let end = detector.run(writers: [results, try JSONLinesWriter(path: "talk.jsonl")])
    /// for try await result in results where result.processed { print(result.timestamp, result.faces?.count ?? 0) }
    /// print(try await end)  // .complete
    /// ```
    ///
    /// Cancelling the task stops the run as `stop()` does: its writers are finished with what was analysed
    /// (`.stopped`) before this returns. Pushed frames (`push(_:)`, `process(_:)`) go to the run while it is
    /// awaited; it ends when the task is cancelled or `stop()` is called. Each call is a new run with its own
    /// writers, face IDs from 0 and its own end; the delegate hears every run. The blocking work (opening the
    /// source, loading the models, the analysis) is on threads of the run's own, never on the cooperative pool.
    /// - Parameters:
    ///   - writers: this run's outputs, fed every result in frame order and finished once at its end; a
    ///     `ResultStream` among them is the run's results as an async sequence.
    ///   - settings: how this run goes (frame limit, resume point); nil: the detector's `settings`.
    /// - Returns: how the input ended; a writer's failure is `.failed`, not thrown.
    /// - Throws: `CancellationError` when the task was cancelled before the run started; `.wrongRunningMode`
    ///   while another run of this detector is open; what `start()` throws for the source and the models.
    public func run(writers: sending [any ResultWriter] = [], settings: RunSettings? = nil) async throws -> InputEnd {
        try await start(writers: writers, settings: settings).end()
    }

    /// Starts a run with `writers` and hands it out once the source is open and the models are loaded: for a
    /// caller that must know the run started (a service saying "ready") before it ends.
    ///
    /// As `run(writers:)`, which is this and `end()`.
    /// - Throws: what `run(writers:)` throws.
    public func start(writers: sending [any ResultWriter], settings: RunSettings? = nil) async throws -> Run {
        try Task.checkCancellation()
        let group = WriterGroup(callbacks: affdex.callbacks, writers)
        let settings = settings ?? self.settings
        return Run(core: try await BlockingWork.bounded { try self.begin(group, settings: settings) })
    }

    /// One run of a detector, from `start(writers:)` to its end: await `end()`, or `stop()` it.
    public struct Run: Sendable {
        let core: DetectorRun

        /// Whether the run still takes frames (false once stopped, failed or a file read to its end).
        public var isOpen: Bool { core.isOpen }

        /// The neutral baseline learnt longest among the faces the run remembers.
        ///
        /// Nil when none was observed or no expressions are measured. What a study carries from a participant's
        /// framing check to their stimuli; read it while the run is open: its end forgets its faces, baselines included.
        package var longestBaseline: NeutralBaseline.Carried? { core.engine.longestBaseline() }

        /// Suspends until the run has ended and its writers are finished, and returns how it ended.
        ///
        /// Cancelling the waiting task stops the run (its writers finished, `.stopped`) before this returns.
        public func end() async -> InputEnd {
            let core = core
            return await withTaskCancellationHandler {
                await core.ended()
                return core.writers.end ?? .stopped
            } onCancel: {
                // Stopping waits for the run's threads: never on the canceller's thread, which may be the pool's.
                core.stop()
            }
        }

        /// Stops the run as `Detector.stop()` does, without waiting.
        ///
        /// The run ends, its writers finished, as soon as its threads have (`end()` says how). For code that
        /// cannot await; calling it again does nothing.
        public func cancel() { core.stop() }

        /// Stops the run as `Detector.stop()` does and returns how it ended, blocking no thread while its
        /// threads finish.
        @discardableResult
        public func stop() async -> InputEnd {
            core.stop()
            await core.ended()
            return core.writers.end ?? .stopped
        }
    }
}

/// Pushed frames into a run (`DetectorSource.pushed`): awaiting room instead of blocking a thread, or not waiting
/// at all.
extension Detector.Run {
    /// Gives the run a frame, suspending (blocking no thread) while `inboxCapacity` frames wait in `.image` or
    /// `.video` mode; in `.liveStream` mode it never waits, and the oldest waiting frame is reported unprocessed
    /// in its place.
    ///
    /// - Parameters:
    ///   - frame: packed 8-bit BGR pixels and a timestamp in seconds (its index is replaced by the inbox's).
    ///   - arrival: when the frame reached the program, if before now (a result's `latency` counts from it).
    /// - Returns: the frame's index, from 0 in the order frames were pushed.
    /// - Throws: `.wrongRunningMode` for a run that reads its own source; `.notStarted` once the run is
    ///   stopped (also while waiting for room); `.nonMonotonicTimestamp` for a tracked frame not after the
    ///   previous one (refused, the run goes on).
    @discardableResult
    public func push(_ frame: Frame, arrival: ContinuousClock.Instant? = nil) async throws -> Int {
        let arrival = arrival ?? .now
        return try await whenThereIsRoom { try tryPush(frame, arrival: arrival) }
    }

    /// Gives the run a frame still to be decoded (a JPEG from a socket), as `push(_:arrival:)` does a decoded one.
    @discardableResult
    public func push(_ frame: EncodedFrame, arrival: ContinuousClock.Instant? = nil) async throws -> Int {
        let arrival = arrival ?? .now
        return try await whenThereIsRoom { try tryPush(frame, arrival: arrival) }
    }

    /// Analyses one frame and returns its result, which the run's writers also get.
    ///
    /// It is `push(_:arrival:)`, then awaiting that frame's result, blocking no thread. In `.liveStream` mode the
    /// result may be unprocessed (`faces` nil): a newer frame took its place.
    /// - Throws: what `push(_:arrival:)` throws; the frame's own error (a stage failure), after which the run
    ///   goes on; a writer's failure, which ended the run.
    public func process(_ frame: Frame, arrival: ContinuousClock.Instant? = nil) async throws -> DetectorResult {
        let arrival = arrival ?? .now
        return try await result(putting: {
            try pushable().put(frame, arrival: arrival, reply: $0, waiting: false)?.index
        })
    }

    /// Decodes and analyses one frame on the run's threads (a picture received over the network), as
    /// `process(_:arrival:)` does a decoded one; a frame that cannot be decoded throws its decoding error
    /// (naming the `EncodedFrame`'s name), and the run goes on.
    public func process(_ frame: EncodedFrame, arrival: ContinuousClock.Instant? = nil) async throws
        -> DetectorResult
    {
        let arrival = arrival ?? .now
        return try await result(putting: { try pushable().put(frame, arrival: arrival, reply: $0, waiting: false) })
    }

    /// Forgets the run's faces, face IDs, baselines and timestamps, as `Detector.reset()` does: pushed frames
    /// are numbered from 0 again and the next may have any timestamp.
    public func reset() { core.reset() }

    /// Puts a frame with a reply into the inbox (`put` returns nil while it is full) and awaits its result.
    private func result(putting put: (Reply) throws -> Int?) async throws -> DetectorResult {
        let reply = Reply()
        try await whenThereIsRoom { try put(reply) }
        let result = try await reply.result()
        // A writer that could not write ended the run; the caller hears it here.
        if let failure = core.writers.end?.error { throw failure }
        return result
    }

    /// Tries `attempt` until the inbox admits the frame, suspending for room in between.
    @discardableResult
    private func whenThereIsRoom(_ attempt: () throws -> Int?) async throws -> Int {
        while true {
            if let index = try attempt() { return index }
            await core.inbox.waitForRoom()
        }
    }

    /// Gives the run a frame if there is room now, for a caller that must never wait (a socket's reading
    /// loop): nil when `inboxCapacity` frames wait in `.image` or `.video` mode (push it again later, or drop
    /// it); in `.liveStream` mode never nil.
    /// - Throws: what `push(_:arrival:)` throws.
    public func tryPush(_ frame: Frame, arrival: ContinuousClock.Instant? = nil) throws -> Int? {
        try pushable().put(frame, arrival: arrival, reply: nil, waiting: false)?.index
    }

    /// Gives the run a frame still to be decoded if there is room now (see `tryPush(_:arrival:)`).
    public func tryPush(_ frame: EncodedFrame, arrival: ContinuousClock.Instant? = nil) throws -> Int? {
        try pushable().put(frame, arrival: arrival, waiting: false)
    }

    /// The inbox, for a run of pushed frames.
    private func pushable() throws -> FrameInbox {
        guard core.feed is PushedFeed else {
            throw MienError(
                .wrongRunningMode, "this detector reads its own source; push and process are for pushed frames")
        }
        return core.inbox
    }
}
