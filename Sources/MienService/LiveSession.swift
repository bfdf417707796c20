import Foundation
import Mien
import MienCore
import Prometheus

/// One `/v1/live` connection: a `Detector` on a live source fed by the socket's frames, and the messages
/// going back.
///
/// The detector is the only frame loop: decoded frames are pushed into its inbox, which drops the oldest
/// waiting frame when analysis falls behind (reported as an unprocessed result), so latency stays bounded. The session only refuses what
/// must not reach it (undecodable, over the pixel limit, time not advancing, a sender faster than
/// `ServiceOptions.maximumIncomingFrameRate`), each with an `error` message, and carries on.
final class LiveSession: DetectorDelegate, Sendable {
    // Mutable state is in `state`; the rest is immutable.
    let id: String
    private let limits: ServiceOptions
    private let models: ModelStore
    private let metrics: ServiceMetrics
    private let outbox: LiveOutbox
    private let state: Locked<State>
    /// Begins and ends, one at a time.
    private let turns = Turns()
    private let clock = ContinuousClock()

    private struct State {
        var detector: Detector?
        /// The detector's run (stopped by `end()`).
        var run: Detector.Run?
        var settings = AnalysisSettings()
        /// The incoming-rate limit.
        var allowance: FrameAllowance
        /// Detectors started and stopped (`detectorCounts`).
        var started = 0
        var stopped = 0
    }

    /// - Parameter outbox: the socket's messages (results come there through the detector's
    ///   `LiveSocketWriter`).
    init(id: String, limits: ServiceOptions, models: ModelStore, metrics: ServiceMetrics, outbox: LiveOutbox) {
        self.id = id
        self.limits = limits
        self.models = models
        self.metrics = metrics
        self.outbox = outbox
        state = Locked(State(allowance: FrameAllowance(rate: limits.maximumIncomingFrameRate)))
    }

    /// Starts (or restarts) analysis with `settings`, and says `ready`.
    ///
    /// The previous detector, if any, is stopped first; frames it had not reported are lost with it. Begins
    /// and ends take turns (`Turns`): an options message and the restart after a failure arriving together
    /// each stop the detector before them, so exactly one is left running.
    /// - Throws: `MienError` for settings that are not valid or a model that cannot be loaded; the
    ///   previous detector is stopped either way.
    func begin(_ settings: AnalysisSettings) async throws {
        try await turns.run { try await self.beginInTurn(settings) }
    }

    private func beginInTurn(_ settings: AnalysisSettings) async throws {
        let options = try settings.detectorOptions()
        await endInTurn()
        let detector = Detector(
            source: .pushed(name: "live:\(id)", mode: .liveStream), options: options,
            models: models)
        detector.delegate = self
        let run = try await detector.start(writers: [LiveSocketWriter(outbox: outbox, metrics: metrics)])
        state.withLock {
            $0.detector = detector
            $0.run = run
            $0.settings = settings
            $0.started += 1
        }
        outbox.send(LiveMessage.ready(session: id, settings: settings).text())
    }

    /// Stops the detector (after the frames it holds).
    func end() async {
        await turns.run { await self.endInTurn() }
    }

    private func endInTurn() async {
        let run = state.withLock { state in
            defer {
                state.detector = nil
                state.run = nil
            }
            return state.run
        }
        guard let run else { return }
        await run.stop()
        state.withLock { $0.stopped += 1 }
    }

    /// Detectors started and stopped by this session so far (for tests: one more started than stopped while
    /// a session analyses, never two).
    var detectorCounts: (started: Int, stopped: Int) { state.withLock { ($0.started, $0.stopped) } }

    /// The detector analysing now (for tests).
    var currentDetector: Detector? { state.withLock { $0.detector } }

    /// A binary message: checked and pushed into the detector's inbox still encoded, or refused with an
    /// error message.
    ///
    /// The detector decodes it when the analysis takes it; when frames come faster than they can be
    /// analysed, the oldest waiting one is dropped undecoded (an unprocessed `result`), so latency stays
    /// bounded and the socket is read as fast as frames come.
    func receiveFrame(_ bytes: [UInt8]) {
        let arrival = clock.now
        // A client closed for reading too slowly gets nothing more: analysing its frames would be work for
        // nobody (the socket is being closed with 1008).
        guard !outbox.overflowed else { return }
        guard admit(at: arrival) else { return }
        do {
            let message = try LiveFrameMessage(bytes)
            guard let detector = state.withLock({ $0.detector }) else {
                throw MienError(.notStarted, "the session has no detector (its options were refused)")
            }
            // Its timestamp is checked there (time must advance); latency counts from the socket.
            let frame = EncodedFrame(
                bytes: message.image, timestamp: message.timestamp, name: "live frame",
                maximumPixels: limits.maximumPixels)
            try detector.push(frame, arrival: arrival)
        } catch {
            refuse(error)
        }
    }

    /// A text message: options or reset.
    func receiveText(_ text: String) async {
        do {
            switch try LiveControl(text: text) {
            case .reset:
                state.withLock { $0.detector }?.reset()
            case .options(let settings):
                try await begin(settings)
            }
        } catch {
            refuse(error, counted: false)
        }
    }

    /// Whether a frame arriving now is within the incoming rate (`FrameAllowance`); a refused frame is
    /// answered at most once a second.
    private func admit(at now: ContinuousClock.Instant) -> Bool {
        let rate = limits.maximumIncomingFrameRate
        let (admitted, notify) = state.withLock { $0.allowance.admit(at: now) }
        if !admitted {
            metrics.framesRefused.increment()
            if notify {
                outbox.send(
                    LiveMessage.failure(
                        ErrorBody(
                            code: "tooFast",
                            message: "frames arrive faster than \(rate) per second; the extra ones are refused",
                            input: "live frame")
                    ).text())
            }
        }
        return admitted
    }

    private func refuse(_ error: any Error, counted: Bool = true) {
        if counted { metrics.framesRefused.increment() }
        let body =
            (error as? MienError).map(ErrorBody.init)
            ?? ErrorBody(code: "internalFailure", message: "\(error)")
        outbox.send(LiveMessage.failure(body).text())
    }

    // MARK: - DetectorDelegate (on the detector's analysing thread)

    /// A frame failed inside the detector, which then stops: say so, and start a fresh detector with
    /// the same settings so the session carries on.
    func detector(_ detector: Detector, didFail error: MienError) {
        outbox.send(LiveMessage.failure(ErrorBody(error)).text())
        Task {
            do {
                try await turns.run {
                    // In its turn: an options message that came meanwhile has already replaced the detector
                    // that failed, and this restart has nothing left to do.
                    let settings = self.state.withLock { $0.detector === detector ? $0.settings : nil }
                    guard let settings else { return }
                    try await self.beginInTurn(settings)
                }
            } catch {
                refuse(error, counted: false)
            }
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
