/// The consumer of the inbox: the one frame loop, on one thread or as a two-stage pipeline.
extension DetectorRun {
    /// Starts the threads that analyse what arrives in the inbox.
    ///
    /// Frames that wait for room (`.image`, `.video`) go through two threads, locating frame n + 1 while frame n is
    /// measured; live frames (`.liveStream`) through one, so that a frame the analysis cannot keep up with
    /// waits in the inbox, where a newer one replaces it, and not between the stages.
    func startAnalysis() {
        guard !inbox.dropsWhenBehind else {
            startThread {
                var normally = true
                defer { self.feed.analysisEnded(self, normally: normally) }
                while self.feed.analysisGoesOn(self), let entry = self.inbox.take() {
                    guard self.measure(self.locate(entry)) == .goesOn else {
                        normally = false
                        return
                    }
                }
            }
            return
        }
        let located = StageQueue<StageItem>(capacity: 2)
        startThread {
            // Closing on the way out ends the measuring stage once it has taken what is queued.
            defer { located.close() }
            while self.feed.analysisGoesOn(self), let entry = self.inbox.take() {
                // False once the measuring stage has stopped (a failure or stop()).
                guard located.put(self.locate(entry)) else { return }
            }
        }
        startThread {
            var normally = true
            // Closing on the way out unblocks the locating stage whatever ended this one.
            defer {
                located.close()
                self.feed.analysisEnded(self, normally: normally)
            }
            // After `stop()` with snapshots, what was located is still measured (`drains`).
            while self.feed.analysisGoesOn(self) || self.drains, let item = located.take() {
                guard self.measure(item) == .goesOn else {
                    normally = false
                    return
                }
            }
        }
    }

    /// The first stage for one inbox entry: rate cap, detection, mesh, pose and tracking.
    private func locate(_ entry: FrameInbox.Entry) -> StageItem {
        switch entry {
        case .frame(let frame, let arrival):
            do {
                let item = try engine.locate(frame, arrival: arrival)
                noteLocated(frame.index, located: true)
                return item
            } catch {
                noteLocated(frame.index, located: false)
                return .unusable(Detector.mienError(error, input: "\(frameOwner) frame \(frame.index)"), arrival)
            }
        case .encoded(let encoded, let arrival):
            do {
                return try engine.locate(try encoded.decode(), arrival: arrival)
            } catch {
                return .unusable(
                    Detector.mienError(error, input: "\(frameOwner) frame \(encoded.index)"), arrival,
                    unprocessed: DetectorResult(unprocessed: encoded))
            }
        case .dropped(let result, let arrival): return .final(result, frame: nil, arrival)
        case .unreadable(let error): return .unusable(error, nil)
        }
    }

    /// The second stage: expressions, emotions and appearance, then delivery.
    private func measure(_ item: StageItem) -> ItemOutcome {
        switch item {
        case .toMeasure(let located, let arrival):
            do {
                deliver(try engine.measure(located), frame: located.frame, arrival: arrival)
            } catch {
                let failure = Detector.mienError(error, input: "\(frameOwner) frame \(located.frameIndex)")
                return report(failure, arrival: arrival)
            }
        case .final(let result, let frame, let arrival):
            deliver(result, frame: frame, arrival: arrival)
        case .unusable(let error, let arrival, let unprocessed):
            guard report(error, arrival: arrival) == .goesOn else { return .runEnded }
            // A frame nobody waits for still gets its result (unprocessed), after its error: every index
            // handed out has one result, as a live client expects.
            if let unprocessed, let arrival, arrival.reply == nil { deliver(unprocessed, frame: nil, arrival: arrival) }
        }
        return .goesOn
    }

    /// One frame or item that could not be analysed: a caller waiting in `process(_:)` gets the error;
    /// otherwise the feed says whether the input goes on (reported unreadable) or the run fails.
    ///
    private func report(_ error: MienError, arrival: FrameInbox.Arrival?) -> ItemOutcome {
        if let reply = arrival?.reply {
            reply.fulfil(.failure(error))
            return .goesOn
        }
        guard feed.goesOn(after: error, arrival: arrival) else {
            fail(error)
            inbox.close(discarding: true)
            return .runEnded
        }
        writers.unreadable(error)
        return .goesOn
    }

    /// The name a frame's error gives.
    private var frameOwner: String { inputName ?? "pushed frame" }
}
