import Foundation
import Mien
import MienCore
import Prometheus

/// One `/v1/live` connection: a run of a `Detector` on a live source fed by the socket's frames, and the messages
/// going back.
///
/// The run is the only frame loop: frames are pushed into its inbox, which drops the oldest waiting frame when
/// analysis falls behind (reported as an unprocessed result), so latency stays bounded. The session only refuses
/// what must not reach it (undecodable, over the pixel limit, time not advancing, a sender faster than
/// `ServiceOptions.maximumIncomingFrameRate`), each with an `error` message, and carries on. It holds a
/// `Detector.Run` alone: its results reach the socket through its writer, its failure through its end.
final class LiveSession: Sendable {
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
        /// The run analysing now (stopped by `end()`), and which begin made it (from 1).
        var run: Detector.Run?
        var generation = 0
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
        let run = try await detector.start(writers: [LiveSocketWriter(outbox: outbox, metrics: metrics)])
        let generation = state.withLock {
            $0.run = run
            $0.settings = settings
            $0.started += 1
            $0.generation += 1
            return $0.generation
        }
        outbox.send(LiveMessage.ready(session: id, settings: settings).text())
        // A frame that fails inside the run ends it: heard here, from its end (a run stopped by `end()` ends
        // `.stopped`, and nothing follows).
        Task {
            if case .failed(let error) = await run.end() { self.failed(error, generation: generation) }
        }
    }

    /// Stops the detector (after the frames it holds).
    func end() async {
        await turns.run { await self.endInTurn() }
    }

    private func endInTurn() async {
        let run = state.withLock { state in
            defer { state.run = nil }
            return state.run
        }
        guard let run else { return }
        await run.stop()
        state.withLock { $0.stopped += 1 }
    }

    /// Detectors started and stopped by this session so far (for tests: one more started than stopped while
    /// a session analyses, never two).
    var detectorCounts: (started: Int, stopped: Int) { state.withLock { ($0.started, $0.stopped) } }

    /// Which begin made the run analysing now, and whether it takes frames (for tests; nil: no run).
    var current: (generation: Int, isOpen: Bool)? {
        state.withLock { state in state.run.map { (state.generation, $0.isOpen) } }
    }

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
            guard let run = state.withLock({ $0.run }) else {
                throw MienError(.notStarted, "the session has no detector (its options were refused)")
            }
            // Its timestamp is checked there (time must advance); latency counts from the socket. A live run's
            // inbox never refuses for room (it drops its oldest frame instead).
            let frame = EncodedFrame(
                bytes: message.image, timestamp: message.timestamp, name: "live frame",
                maximumPixels: limits.maximumPixels)
            _ = try run.tryPush(frame, arrival: arrival)
        } catch {
            refuse(error)
        }
    }

    /// A text message: options or reset.
    func receiveText(_ text: String) async {
        do {
            switch try LiveControl(text: text) {
            case .reset:
                state.withLock { $0.run }?.reset()
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

    /// The run of begin `generation` failed (a frame failed inside it, which ended it): say so, and start a fresh
    /// run with the same settings so the session carries on.
    func failed(_ error: MienError, generation: Int) {
        outbox.send(LiveMessage.failure(ErrorBody(error)).text())
        Task {
            do {
                try await turns.run {
                    // In its turn: an options message that came meanwhile has already replaced the run that
                    // failed, and this restart has nothing left to do.
                    let settings = self.state.withLock { $0.generation == generation ? $0.settings : nil }
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
