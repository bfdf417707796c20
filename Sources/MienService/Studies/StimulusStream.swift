import Foundation
import HTTPTypes
import Mien
import MienCore
import MienStudies

/// One participant's socket for one stimulus (or for the framing check): a `Detector`'s run on pushed frames whose
/// writers are the participant's result files, fed with camera frames stamped with the stimulus's media time.
///
/// Frames are decoded and analysed as they come and then dropped: no picture reaches the disk. The socket
/// refuses what the study does not allow, each with an `error` message, and carries on: frames faster than the
/// rate the page was asked for (with a burst allowance), of more pixels than a square of its
/// `maximumFrameSide`, or whose time does not advance. Each result line is written to the participant's file as
/// its frame is measured, so what a killed server measured is recovered at its next start.
final class StimulusStream: Sendable {
    let study: CollectedStudy
    let participant: String
    /// The stimulus, or nil for the framing check (nothing stored, results go back to the page).
    let stimulus: CollectionSettings.Stimulus?
    private let outbox: LiveOutbox
    private let run: Detector.Run
    private let counter: StimulusCounter
    /// The attempt's upload to the study's database, if it has one.
    private let upload: ResultUpload?
    /// When its frames arrived (a stimulus socket keeps its place only while they come).
    let cadence: FrameCadence
    /// The framing check as the server judges it (nil for a stimulus).
    private let framing: FramingWriter?
    private let clock = ContinuousClock()
    private let maximumMessageBytes: Int

    private struct State {
        var allowance: FrameAllowance
        var rate: Double
        var framed = false
        /// Where the framing check's preview was on the participant's screen (`{"type":"framed","preview":…}`).
        var preview: (x: Double, y: Double)?
        /// The page said a framing try failed (its time ran out): only that counts as a failure, not a reload.
        var failed = false
        var ended = false
        /// The page said the stimulus ended sooner than it could have played (a seek, a faster rate, a forged end).
        var endedTooSoon = false
        var lastFrame: ContinuousClock.Instant?
        var lastReport: ContinuousClock.Instant
        /// What the page said of the viewing (`ViewingLog`).
        var viewing = ViewingLog()
    }
    private let state: Locked<State>

    /// Frames per second allowed above the rate the page was asked for before frames are refused (a page's
    /// timer jitters, and a page hears of a lower rate a moment after it is set).
    static let rateSlack = 1.5
    // The allowance's burst is a second of frames, not a quarter: frames a busy server reads late arrive in a bunch
    // (a 0.8-s stall of the server's own made 4 frames at 5 a second look like a flood and refused 2 of a viewer's
    // frames); a second of frames is what a study page's rate allows to queue, and a sustained excess is still
    // refused.

    /// Seconds a frame's stimulus time may pass the stimulus's length (the last frame of a video ends at its
    /// length; a browser's `currentTime` may run a frame past it).
    static let stampSlack = 0.5

    /// Made by `open` (`StimulusStream+Opening.swift`) once the run has started.
    init(
        study: CollectedStudy, participant: String, stimulus: CollectionSettings.Stimulus?, rate: Double,
        outbox: LiveOutbox, run: Detector.Run, counter: StimulusCounter, upload: ResultUpload?, cadence: FrameCadence,
        framing: FramingWriter?
    ) {
        self.framing = framing
        self.study = study
        self.participant = participant
        self.stimulus = stimulus
        self.outbox = outbox
        self.run = run
        self.counter = counter
        self.upload = upload
        self.cadence = cadence
        let side = study.settings.maximumFrameSide
        // An encoded frame is at most what a lossless picture of the largest frame would take, and no more.
        maximumMessageBytes = side * side * 3 + 1024
        state = Locked(
            State(
                allowance: FrameAllowance(rate: rate * Self.rateSlack, burstSeconds: 1), rate: rate,
                lastReport: ContinuousClock.now))
        cadence.asked(rate: rate, at: clock.now)
    }

    /// The server asks the page for `rate` frames per second (it is busy, or less busy again).
    func setRate(_ rate: Double) {
        state.withLock { state in
            state.rate = rate
            state.allowance = FrameAllowance(rate: rate * Self.rateSlack, burstSeconds: 1)
        }
        counter.asked(rate: rate)
        cadence.asked(rate: rate, at: clock.now)
        outbox.send(#"{"frameRate":\#(LiveMessage.number(rate)),"type":"rate"}"#)
    }

    /// The rate the page is asked for.
    var rate: Double { state.withLock { $0.rate } }

    /// A binary message: `LiveFrameMessage` (media time in milliseconds, then a JPEG).
    /// - Returns: frames received and analysed since the last report, about once a second (for the budget).
    func receiveFrame(_ bytes: [UInt8]) -> (received: Int, analysed: Int)? {
        let arrival = clock.now
        let (admitted, notify, rate, report, hidden) = state.withLock { state in
            let (admitted, notify) = state.allowance.admit(at: arrival)
            state.lastFrame = arrival
            let report = arrival - state.lastReport >= .seconds(1)
            if report { state.lastReport = arrival }
            return (admitted, notify, state.rate, report, state.viewing.hidden)
        }
        if !admitted {
            if notify {
                send(
                    ErrorBody(
                        code: "tooFast",
                        message:
                            "frames arrive faster than the \(rate) per second asked for; the extra ones are refused",
                        input: "live frame"))
            }
        } else {
            do {
                guard bytes.count <= maximumMessageBytes else {
                    throw MienError(
                        .tooLarge, "a frame message may hold \(maximumMessageBytes) bytes in this study",
                        input: "live frame")
                }
                let message = try LiveFrameMessage(bytes)
                if let duration = stimulus?.duration, message.timestamp > duration + Self.stampSlack {
                    throw MienError(
                        .invalidArgument,
                        "a frame's stimulus time (\(message.timestamp) s) is past the stimulus's end (\(duration) s); it is not counted",
                        input: "live frame")
                }
                // A hidden page's frames are not a viewing (its timers are throttled, its stimulus may play on
                // unseen): not counted, so a stimulus hidden too long is not counted as watched.
                if hidden {
                    throw MienError(
                        .invalidArgument, "a frame sent while the page said it was hidden is not counted",
                        input: "live frame")
                }
                let side = study.settings.maximumFrameSide
                let frame = EncodedFrame(
                    bytes: message.image, timestamp: message.timestamp, name: "live frame", maximumPixels: side * side)
                // A live run never waits: when the analysis is behind, the oldest waiting frame gives way.
                _ = try run.tryPush(frame, arrival: arrival)
                counter.received(at: message.timestamp)
                cadence.arrived(at: arrival, time: message.timestamp)
            } catch {
                send(
                    (error as? MienError).map(ErrorBody.init) ?? ErrorBody(code: "internalFailure", message: "\(error)")
                )
            }
        }
        return report && stimulus != nil ? counter.sinceLastReport() : nil
    }

    /// A text message: `{"type":"end"}` (the stimulus played to its end), `{"type":"framed"}` (the framing
    /// check passed) or `{"type":"failed"}` (a framing try's time ran out).
    /// - Returns: whether it was one of these (text of no kind the socket takes keeps no socket open: issue 94).
    @discardableResult
    func receiveText(_ text: String) -> Bool {
        struct Point: Decodable { var x: Double, y: Double }
        struct Kind: Decodable {
            var type: String
            var preview: Point?
        }
        let message: Kind?
        do {
            message = try JSONDecoder().decode(Kind.self, from: Data(text.utf8))
        } catch {
            message = nil
        }
        let kind = message?.type
        switch kind {
        case "end" where stimulus != nil:
            // A skipped stimulus played until the skip.
            let skipped = state.withLock { $0.viewing.viewing.skippedAt }
            let soon = stimulus.flatMap { cadence.endedTooSoon(at: clock.now, duration: skipped ?? $0.duration) }
            state.withLock { state in
                state.ended = true
                state.endedTooSoon = soon != nil
            }
            if let soon {
                send(
                    ErrorBody(
                        code: "endedTooSoon",
                        message:
                            "the stimulus was said to end \(Int(saturating: soon.played)) s after its first frame, but \(Int(saturating: soon.left)) s of it were left to play; it does not count as watched",
                        input: "control message"))
            }
        case "framed" where stimulus == nil:
            // The server's own judgement decides: a page that skipped the check, or a client with no page, is told.
            guard framing?.passed == true else {
                send(
                    ErrorBody(
                        code: "notFramed",
                        message:
                            "the server has not yet seen your face in position (large enough, lit and facing the camera) for \(LiveMessage.number(study.settings.framing.seconds)) s; please keep still a moment longer",
                        input: "control message"))
                return true
            }
            // A preview off the screen (or a page that gives none) leaves the look where it was measured.
            let preview = message?.preview.flatMap {
                (0...1).contains($0.x) && (0...1).contains($0.y) ? ($0.x, $0.y) : nil
            }
            state.withLock { state in
                state.framed = true
                state.preview = preview
            }
        case "failed" where stimulus == nil:
            state.withLock { $0.failed = true }
        case "viewing" where stimulus != nil:
            let skippable = study.settings.skippableAfter
            let (refusal, skipped, hidden) = state.withLock { state in
                let before = state.viewing.viewing.skippedAt
                let refusal = state.viewing.receive(text, duration: stimulus?.duration, skippableAfter: skippable)
                let after = state.viewing.viewing.skippedAt
                return (refusal, before == nil ? after : nil, state.viewing.hidden)
            }
            if let skipped { counter.skipped(at: skipped) }
            // The frame rule waits while the page is hidden (its frames are not counted then).
            cadence.hidden(hidden, at: clock.now)
            if let refusal { send(ErrorBody(code: "invalidArgument", message: refusal, input: "viewing event")) }
        default:
            send(
                ErrorBody(
                    code: "invalidArgument",
                    message: stimulus == nil
                        ? #"the framing socket takes {"type":"framed"} or {"type":"failed"}"#
                        : #"a stimulus socket takes {"type":"end"} and {"type":"viewing", …}"#,
                    input: "control message"))
            return false
        }
        return true
    }

    /// When the server saw this framing check pass (nil: not yet, or a stimulus's socket).
    var framingPassedAt: ContinuousClock.Instant? { framing?.passedAt }

    /// Whether the page said the stimulus ended or the framing check passed: the socket's work is done.
    var finished: Bool { state.withLock { $0.ended || $0.framed } }

    /// Whether frames flowed within the last `seconds` (a framing socket counts against capacity only then).
    func flowing(within seconds: Double) -> Bool {
        state.withLock { $0.lastFrame.map { clock.now - $0 < .seconds(seconds) } ?? false }
    }

    /// What was measured so far, and the rate asked for (the dashboard's live progress).
    func liveProgress() -> (ParticipantSession.StimulusProgress, Double) {
        var progress = counter.progress()
        progress.viewing = state.withLock { $0.viewing.kept }
        return (progress, rate)
    }

    /// Stops the run after the frames it holds, and records what was measured (a framing check: whether it
    /// passed).
    /// - Parameter end: how the socket ended when it was not the page's own end (a restart, a write failure).
    /// - Returns: what the page is told of a stimulus.
    func close(end: CollectedStudy.SocketEnd?, socket: UUID) async -> CollectedStudy.StimulusOutcome? {
        // Read before the run ends: its end forgets its faces, baselines included.
        let neutral = stimulus == nil ? run.longestBaseline : nil
        let runEnd = await run.stop()
        var end = end
        // Committing the files can fail too (a full disk): then the stimulus was not saved.
        if case .failed(let error) = runEnd, stimulus != nil, end == nil || end == .ended {
            end = Self.end(of: error, upload: upload)
        }
        let (ended, framed, failed, tooSoon, preview) = state.withLock {
            ($0.ended, $0.framed, $0.failed, $0.endedTooSoon, $0.preview)
        }
        let recorded = end
        // The store writes the session (a folder off the cooperative pool).
        guard let stimulus else {
            // The look at the preview, moved to the screen's centre by where the preview was on it (a laptop's size).
            let look = framing?.look.map { look in
                preview.map {
                    ScreenGeometry.laptop.centreLook(fromLook: look.yaw, pitch: look.pitch, atX: $0.x, y: $0.y)
                }
                    ?? look
            }
            await study.framingEnded(
                participant, socket: socket, passed: framed ? true : failed ? false : nil, look: look,
                neutral: framed ? neutral : nil)
            return nil
        }
        var progress = counter.progress(ended: ended && !tooSoon && recorded == nil)
        progress.viewing = state.withLock { $0.viewing.kept }
        return await study.endStimulus(
            participant, stimulus: stimulus, progress: progress, end: recorded ?? (ended ? .ended : .left),
            socket: socket)
    }

    private func send(_ body: ErrorBody) { outbox.send(LiveMessage.failure(body).text()) }
}
