import Foundation
import Mien
import Synchronization

/// One participant's socket for one stimulus (or for the framing check): a `Detector` on pushed frames whose
/// writers are the participant's result files, fed with camera frames stamped with the stimulus's media time.
///
/// Frames are decoded and analysed as they come and then dropped: no picture reaches the disk. The socket
/// refuses what the study does not allow, each with an `error` message, and carries on: frames faster than the
/// study's rate (with a burst allowance), of more pixels than a square of its `maximumFrameSide`, or whose time
/// does not advance.
final class StimulusStream: @unchecked Sendable {
    // Mutable state is in `state` (a Mutex); the rest is immutable.
    let study: CollectedStudy
    let participant: String
    /// The stimulus, or nil for the framing check (nothing stored, results go back to the page).
    let stimulus: CollectionSettings.Stimulus?
    private let outbox: LiveOutbox
    private let detector: Detector
    private let counter: ProgressCounter
    private let clock = ContinuousClock()
    private let maximumMessageBytes: Int

    private struct State {
        var allowance: FrameAllowance
        var framed = false
        var ended = false
    }
    private let state: Mutex<State>

    /// Frames per second allowed above the study's rate before frames are refused (a page's timer jitters).
    static let rateSlack = 1.5

    /// Starts the detector.
    /// - Throws: `MienError` when a result file cannot be created or the models cannot be loaded.
    init(
        study: CollectedStudy, participant: String, stimulus: CollectionSettings.Stimulus?, outbox: LiveOutbox,
        models: ModelStore, metrics: ServiceMetrics
    ) throws {
        self.study = study
        self.participant = participant
        self.stimulus = stimulus
        self.outbox = outbox
        let side = study.settings.maximumFrameSide
        // An encoded frame is at most what a lossless picture of the largest frame would take, and no more.
        maximumMessageBytes = side * side * 3 + 1024
        counter = ProgressCounter(
            duration: stimulus?.duration, interval: 1 / study.settings.frameRate, outbox: stimulus == nil ? nil : outbox
        )
        state = Mutex(State(allowance: FrameAllowance(rate: study.settings.frameRate * Self.rateSlack)))
        let options: DetectorOptions
        var writers: [any ResultWriter] = [counter]
        if let stimulus {
            options = try CollectionAnalysis.options
            let files = study.folder.files(participant: participant, stimulus: stimulus.name)
            try FileManager.default.createDirectory(
                at: study.folder.participant(participant), withIntermediateDirectories: true)
            writers += try files.writers(input: stimulus.name, report: nil, generator: "mien serve --studies")
        } else {
            options = try DetectorOptions(detection: DetectionOptions(), metrics: [])
            writers.append(LiveSocketWriter(outbox: outbox, metrics: metrics))
        }
        detector = Detector(
            source: .pushed(
                name: stimulus.map { "\(participant)/\($0.name)" } ?? "framing", timing: .stream, whenFull: .dropOldest),
            options: options, models: models, writers: writers)
        try detector.start()
    }

    /// A binary message: `LiveFrameMessage` (media time in milliseconds, then a JPEG).
    func receiveFrame(_ bytes: [UInt8]) {
        let arrival = clock.now
        let (admitted, notify) = state.withLock { $0.allowance.admit(at: arrival) }
        guard admitted else {
            if notify {
                send(
                    ErrorBody(
                        code: "tooFast",
                        message:
                            "frames arrive faster than this study's \(study.settings.frameRate) per second; the extra ones are refused",
                        input: "live frame"))
            }
            return
        }
        do {
            guard bytes.count <= maximumMessageBytes else {
                throw MienError(
                    .tooLarge, "a frame message may hold \(maximumMessageBytes) bytes in this study",
                    input: "live frame")
            }
            let message = try LiveFrameMessage(bytes)
            let side = study.settings.maximumFrameSide
            let frame = EncodedFrame(
                bytes: message.image, timestamp: message.timestamp, name: "live frame", maximumPixels: side * side)
            _ = try detector.push(frame, arrival: arrival)
            counter.received(at: message.timestamp)
        } catch {
            send((error as? MienError).map(ErrorBody.init) ?? ErrorBody(code: "internalFailure", message: "\(error)"))
        }
    }

    /// A text message: `{"type":"end"}` (the stimulus played to its end) or `{"type":"framed"}` (the framing
    /// check passed).
    func receiveText(_ text: String) {
        struct Kind: Decodable { var type: String }
        switch (try? JSONDecoder().decode(Kind.self, from: Data(text.utf8)))?.type {
        case "end" where stimulus != nil: state.withLock { $0.ended = true }
        case "framed" where stimulus == nil: state.withLock { $0.framed = true }
        default:
            send(
                ErrorBody(
                    code: "invalidArgument",
                    message: stimulus == nil
                        ? #"the framing socket takes {"type":"framed"}"# : #"a stimulus socket takes {"type":"end"}"#,
                    input: "control message"))
        }
    }

    /// Whether the page said the stimulus ended or the framing check passed: the socket's work is done.
    var finished: Bool { state.withLock { $0.ended || $0.framed } }

    /// Stops the detector after the frames it holds, and records what was measured.
    func close() {
        detector.stop()
        let (ended, framed) = state.withLock { ($0.ended, $0.framed) }
        if let stimulus {
            study.endStimulus(participant, stimulus: stimulus, progress: counter.progress(ended: ended))
        } else if framed {
            study.framingEnded(participant)
        } else {
            study.framingFailed(participant)
        }
    }

    private func send(_ body: ErrorBody) { outbox.send(LiveMessage.failure(body).text()) }
}

/// Counts what a stimulus socket measured, for the participant's session.
final class ProgressCounter: ResultWriter, Sendable {
    private let progress = Mutex(ParticipantSession.StimulusProgress())
    private let duration: Double?
    private let interval: Double
    /// Where a frame that cannot be decoded is reported (the framing socket's results writer does it there).
    private let outbox: LiveOutbox?

    init(duration: Double?, interval: Double, outbox: LiveOutbox?) {
        self.duration = duration
        self.interval = interval
        self.outbox = outbox
    }

    func received(at time: Double) {
        progress.withLock { progress in
            progress.frames += 1
            progress.lastTime = time
        }
    }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        guard let faces = result.faces else { return }
        progress.withLock { progress in
            progress.analysed += 1
            if !faces.isEmpty { progress.withFace += 1 }
        }
    }

    /// The progress when the socket closed.
    func progress(ended: Bool) -> ParticipantSession.StimulusProgress {
        progress.withLock { progress in
            var final = progress
            final.ended = ended
            if let duration, let last = progress.lastTime {
                final.coverage = ended ? 1 : min(1, (last + interval) / duration)
                final.coverage = (final.coverage * 1000).rounded() / 1000
            }
            return final
        }
    }

    func unreadable(_ error: MienError) { outbox?.send(LiveMessage.failure(ErrorBody(error)).text()) }
    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
