import Foundation

/// The consumer of the inbox: the one frame loop, on one thread or as a two-stage pipeline.
extension Detector {
    /// Starts the threads that analyse what arrives in `inbox`.
    ///
    /// Frames that wait for room (`.block`) go through two threads, locating frame n + 1 while frame n is
    /// measured; live frames (`.dropOldest`) through one, so that a frame the analysis cannot keep up with
    /// waits in the inbox, where a newer one replaces it, and not between the stages.
    func startAnalysis(of inbox: FrameInbox, engine: DetectorEngine, generation: Int) {
        // Once the analysis ends (a failure, stop()), a reading thread waiting for room must not wait forever.
        let abandon: @Sendable () -> Void = { if self.source.readsItself { inbox.close(discarding: true) } }
        guard inbox.policy == .block else {
            startThread {
                defer { abandon() }
                while self.goesOn(generation), let entry = inbox.take() {
                    guard self.finish(self.locate(entry, engine: engine), engine: engine) else { return }
                }
                self.inputEnded(inbox, generation: generation)
            }
            return
        }
        let located = StageQueue<LocatedFrame>(capacity: 2)
        startThread {
            // Closing on the way out ends the measuring stage once it has taken what is queued.
            defer { located.close() }
            while self.goesOn(generation), let entry = inbox.take() {
                // False once the measuring stage has stopped (a failure or stop()).
                guard located.put(self.locate(entry, engine: engine)) else { return }
            }
        }
        startThread {
            // Closing on the way out unblocks the locating stage whatever ended this one.
            defer {
                located.close()
                abandon()
            }
            while self.goesOn(generation), let item = located.take() {
                guard self.finish(item, engine: engine) else { return }
            }
            self.inputEnded(inbox, generation: generation)
        }
    }

    /// Whether the loop takes the next entry: pushed frames are analysed until the inbox is drained
    /// (`stop()` closes it), frames the detector reads itself only while this run is current.
    private func goesOn(_ generation: Int) -> Bool {
        !source.readsItself || isCurrent(generation)
    }

    /// The first half for one inbox entry: rate cap, detection, mesh, pose and tracking.
    private func locate(_ entry: FrameInbox.Entry, engine: DetectorEngine) -> LocatedFrame {
        switch entry {
        case .frame(let frame, let arrival):
            do {
                return try engine.locate(frame, arrival: arrival)
            } catch {
                return .failed(Self.mienError(error, input: "\(frameOwner) frame \(frame.index)"), arrival)
            }
        case .encoded(let encoded, let arrival):
            do {
                return try engine.locate(try encoded.decode(), arrival: arrival)
            } catch {
                return .failed(
                    Self.mienError(error, input: "\(frameOwner) frame \(encoded.index)"), arrival,
                    unprocessed: DetectorResult(unprocessed: encoded))
            }
        case .dropped(let result, let arrival): return .finished(result, frame: nil, arrival)
        case .unreadable(let error): return .failed(error, nil)
        }
    }

    /// The second half: expressions, emotions and appearance, then delivery.
    ///
    /// - Returns: false when the run ended on a failure.
    private func finish(_ item: LocatedFrame, engine: DetectorEngine) -> Bool {
        switch item {
        case .located(let located, let arrival):
            do {
                deliver(try engine.measure(located), frame: located.frame, arrival: arrival)
            } catch {
                let failure = Self.mienError(error, input: "\(frameOwner) frame \(located.frameIndex)")
                return failed(failure, arrival: arrival)
            }
        case .finished(let result, let frame, let arrival):
            deliver(result, frame: frame, arrival: arrival)
        case .failed(let error, let arrival, let unprocessed):
            guard failed(error, arrival: arrival) else { return false }
            // A frame nobody waits for still gets its result (unprocessed), after its error: every index
            // handed out has one result, as a live client expects.
            if let unprocessed, let arrival, arrival.reply == nil { deliver(unprocessed, frame: nil, arrival: arrival) }
        }
        return true
    }

    /// One frame or item that could not be analysed.
    ///
    /// A caller waiting in `process(_:)` gets the error; a
    /// pushed frame nobody waits for, or a picture of a folder, is reported unreadable and the input goes on; in
    /// a video or a camera's stream the run fails.
    ///
    /// - Returns: whether the input goes on.
    private func failed(_ error: MienError, arrival: FrameInbox.Arrival?) -> Bool {
        if let reply = arrival?.reply {
            reply.fulfil(.failure(error))
            return true
        }
        let goesOn = !source.readsItself || arrival == nil || isFolder
        guard goesOn else {
            fail(error)
            inbox.withLock { $0 }?.close(discarding: true)
            return false
        }
        writers.unreadable(error)
        return true
    }

    /// After the last entry of a source the detector reads: its failure, or its end.
    private func inputEnded(_ inbox: FrameInbox, generation: Int) {
        // Pushed frames end with `stop()`, which ends the run itself.
        guard source.readsItself, isCurrent(generation) else { return }
        if let failure = inbox.endedBy {
            fail(failure)
        } else if source.isLive {
            // A live source that ends is not a file that was read to its end: no `finished` callback.
            end(.complete)
        } else {
            // The end of a file: the delegate hears `detectorDidFinishProcessing` from its `CallbackWriter`.
            control.withLock { $0.running = false }
            end(.complete)
        }
    }

    /// The name a frame's error gives.
    private var frameOwner: String { source.inputName ?? "pushed frame" }

    /// Whether the source is a folder of pictures (whose items are unrelated: one failing does not end it).
    private var isFolder: Bool { control.withLock { $0.readsFolder } }
}
