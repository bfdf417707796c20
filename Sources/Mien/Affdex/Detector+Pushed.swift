import Foundation

/// Pushed frames, the Affdex way: the caller's blocking `push(_:)` and `process(_:)`, over the current run's inbox (a
/// run's own `push` and `process` await instead; the reading thread of other sources is `SourceReader`).
extension Detector {
    /// Gives the detector a frame and returns at once (Affdex's `processImage:atTime:`): its result comes to
    /// the delegate, `results` and the writers, in order.
    ///
    /// ```swift
    /// let detector = Detector(source: .pushed(mode: .video), options: try DetectorOptions(metrics: [.expression(.smile)]))
    /// detector.delegate = printer  // or read detector.results from a task
    /// try detector.start()
    /// for (index, pixels) in decodedFrames.enumerated() {  // BGR, 3 bytes a pixel
    ///     try detector.push(Frame(width: 640, height: 480, pixels: pixels, timestamp: Double(index) / 30))
    /// }
    /// detector.stop()  // analyses what is still waiting, then ends the results
    /// ```
    ///
    /// In `.image` and `.video` mode it waits while `inboxCapacity` frames are waiting; in `.liveStream` mode
    /// it never waits, and the oldest waiting frame is dropped and reported unprocessed.
    /// - Parameters:
    ///   - frame: packed 8-bit BGR pixels and a timestamp in seconds (its index is replaced by the inbox's).
    ///   - arrival: when the frame reached the program, if earlier than now (a frame received encoded
    ///     and decoded since), so that the result's `latency` counts from then; default now.
    /// - Returns: the frame's index, from 0 in the order frames were pushed (its result's `frameIndex`).
    /// - Throws: `.wrongRunningMode` for a detector that reads its own source; `.notStarted` before
    ///   `start()` or after `stop()`; `.nonMonotonicTimestamp` when a tracked frame is not after the previous
    ///   one (the frame is refused, the detector goes on).
    @discardableResult
    public func push(_ frame: Frame, arrival: ContinuousClock.Instant? = nil) throws -> Int {
        let run = try pushedRun()
        return try Self.whenThereIsRoom(in: run) {
            try run.inbox.put(frame, arrival: arrival, reply: nil, waiting: false)?.index
        }
    }

    /// Gives the detector a frame still to be decoded (a JPEG from a socket); it is decoded when the
    /// analysis takes it, and never when it is dropped for a newer one.
    ///
    /// A frame that cannot be decoded is reported to the delegate (`couldNotRead`) and the writers, and the
    /// detector goes on. Otherwise as `push(_:)` for a decoded frame.
    /// - Returns: the frame's index.
    @discardableResult
    public func push(_ frame: EncodedFrame, arrival: ContinuousClock.Instant? = nil) throws -> Int {
        let run = try pushedRun()
        return try Self.whenThereIsRoom(in: run) { try run.inbox.put(frame, arrival: arrival, waiting: false) }
    }

    /// `admit`'s value once the run's inbox takes the frame, the caller's thread waiting for room between tries
    /// through the adapter's one bridge (`AffdexWait`).
    private static func whenThereIsRoom<Value>(in run: DetectorRun, _ admit: () throws -> Value?) throws -> Value {
        while true {
            if let admitted = try admit() { return admitted }
            _ = AffdexWait.until { done in run.inbox.whenThereIsRoom { done(()) } }
        }
    }

    /// Analyses one picture or pushed frame and returns its result (also delivered to the delegate,
    /// `results` and the writers): `push(_:)`, then waiting for that frame's result.
    ///
    /// In `.liveStream` mode the result may be unprocessed (`faces` nil): a newer frame took its place.
    /// - Important: Not from inside a delegate callback or a writer (they run on the thread this waits for).
    /// - Throws: what `push(_:)` throws; the frame's own error (an unreadable picture, a stage failure), after
    ///   which the detector goes on; a writer's failure, which ended the run.
    @discardableResult
    public func process(_ frame: Frame) throws -> DetectorResult {
        let reply = Reply()
        let run = try pushedRun()
        _ = try Self.whenThereIsRoom(in: run) { try run.inbox.put(frame, arrival: nil, reply: reply, waiting: false) }
        guard let outcome = AffdexWait.until({ reply.whenFulfilled($0) }) else {
            throw MienError(.internalFailure, "a frame's result was handed over empty")
        }
        let result = try outcome.get()
        // A writer that could not write ended the run; the caller hears it here.
        if let failure = run.writers.end?.error { throw failure }
        return result
    }

    /// The run frames may be pushed to: pushed frames only, between `start()` and `stop()`.
    func pushedRun() throws -> DetectorRun {
        guard case .pushed = source else {
            throw MienError(
                .wrongRunningMode, "this detector reads its own source; push and process are for pushed frames")
        }
        guard let run = lastRun, run.isOpen else {
            throw MienError(.notStarted, "call start() before giving the detector frames")
        }
        return run
    }

    static func mienError(_ error: any Error, input: String) -> MienError {
        (error as? MienError)?.naming(input) ?? MienError(.internalFailure, "\(error)", input: input)
    }
}
