import Foundation

/// The producers of the inbox: the caller's `push(_:)` and `process(_:)`, and the reading thread.
extension Detector {
    /// Gives the detector a frame and returns at once (Affdex's `processImage:atTime:`): its result comes to
    /// the delegate, `results` and the writers, in order.
    ///
    /// ```swift
    /// let detector = Detector(source: .pushed(timing: .stream), options: try DetectorOptions(metrics: [.expression(.smile)]))
    /// detector.delegate = printer  // or read detector.results from a task
    /// try detector.start()
    /// for (index, pixels) in decodedFrames.enumerated() {  // BGR, 3 bytes a pixel
    ///     try detector.push(Frame(width: 640, height: 480, pixels: pixels, timestamp: Double(index) / 30))
    /// }
    /// detector.stop()  // analyses what is still waiting, then ends the results
    /// ```
    ///
    /// With `.block` (the default) it waits while `inboxCapacity` frames are waiting; with `.dropOldest`
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
        try pushedInbox().put(frame, arrival: arrival).index
    }

    /// Gives the detector a frame still to be decoded (a JPEG from a socket); it is decoded when the
    /// analysis takes it, and never when it is dropped for a newer one.
    ///
    /// A frame that cannot be decoded is reported to the delegate (`couldNotRead`) and the writers, and the
    /// detector goes on. Otherwise as `push(_:)` for a decoded frame.
    /// - Returns: the frame's index.
    @discardableResult
    public func push(_ frame: EncodedFrame, arrival: ContinuousClock.Instant? = nil) throws -> Int {
        try pushedInbox().put(frame, arrival: arrival)
    }

    /// Analyses one picture or pushed frame and returns its result (also delivered to the delegate,
    /// `results` and the writers): `push(_:)`, then waiting for that frame's result.
    ///
    /// With `.dropOldest` the result may be unprocessed (`faces` nil): a newer frame took its place.
    /// - Important: Not from inside a delegate callback or a writer (they run on the thread this waits for).
    /// - Throws: what `push(_:)` throws; the frame's own error (an unreadable picture, a stage failure), after
    ///   which the detector goes on; a writer's failure, which ended the run.
    @discardableResult
    public func process(_ frame: Frame) throws -> DetectorResult {
        let reply = Reply()
        try pushedInbox().put(frame, reply: reply)
        let result = try reply.wait()
        // A writer that could not write ended the run; the caller hears it here.
        if let failure = writers.end?.error { throw failure }
        return result
    }

    private func pushedInbox() throws -> FrameInbox {
        guard !source.readsItself else {
            throw MienError(
                .wrongRunningMode, "this detector reads its own source; push and process are for pushed frames")
        }
        guard control.withLock({ $0.running }), let inbox = inbox.withLock({ $0 }) else {
            throw MienError(.notStarted, "call start() before giving the detector frames")
        }
        return inbox
    }

    /// A frame source that may be moved to the reading thread.
    final class SourceBox: @unchecked Sendable {
        // Handed from `start()` to exactly one reading thread, which is then its only user.
        let source: any FrameSource
        init(_ source: any FrameSource) { self.source = source }
    }

    func openSource() throws -> SourceBox? {
        switch source {
        case .camera(let device, let width, let height):
            SourceBox(try InputSource.openCamera(device, width: width, height: height))
        case .file(let path, let interval):
            SourceBox(try InputSource.open(path: path, imageInterval: interval ?? 0))
        case .source(_, _, let open):
            SourceBox(try open())
        case .pushed:
            nil
        }
    }

    /// The reading thread: puts every frame of the source in the inbox, in order (from `options.resume`'s
    /// point, up to `options.maximumFrames`), then closes it, with the reason when the source failed.
    ///
    /// Reading is its own thread so that decoding frame n + 1 overlaps the analysis of frame n (on 2 cores
    /// the difference between paying decode + analysis per frame and paying the larger of the two).
    func read(_ box: SourceBox, into inbox: FrameInbox, generation: Int) {
        // The name the caller gave (a service's client name, not the path it was saved under).
        let name = source.inputName ?? box.source.name
        // A folder's pictures are unrelated files: one that cannot be read is reported and the others go
        // on. In a video or from a camera nothing after a failure can be trusted.
        let goesOn = box.source.info.kind == .imageFolder
        let limit = options.maximumFrames ?? .max
        // A resumed stream reads every frame again (they are analysed, not delivered, up to the break);
        // pictures that stand alone are read from the break on.
        let replays = control.withLock { $0.replayUntil != nil }
        let resumeAfter = replays ? -1 : options.resume?.afterFrame ?? -1
        var read = 0
        var failure: MienError?
        while isCurrent(generation) && read < limit {
            let frame: Frame
            do {
                guard let next = try box.source.nextFrame() else { break }
                frame = next
            } catch {
                let error = Self.mienError(error, input: name)
                guard goesOn else {
                    failure = error
                    break
                }
                guard inbox.putUnreadable(error) else { return }
                continue
            }
            read += 1
            guard frame.index > resumeAfter else { continue }
            do {
                try inbox.put(frame)
            } catch let error as MienError where error.code == .nonMonotonicTimestamp {
                // A stream whose time goes back cannot be tracked: the run fails on it.
                failure = MienError(.nonMonotonicTimestamp, "frame \(frame.index): \(error.message)", input: name)
                break
            } catch {
                return  // closed: the detector stopped or failed
            }
        }
        inbox.close(failure: failure)
    }
}
