import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies

/// A participant's sockets and their end: one socket (framing check or stimulus) at a time, each stimulus's
/// measurement recorded when its socket closes (completion is in `CollectedStudy+Completion.swift`).
extension CollectedStudy {
    /// How a stimulus socket ended.
    enum SocketEnd: Sendable, Equatable {
        /// The page said the stimulus played to its end.
        case ended
        /// The socket closed before (tab closed, reload, network lost).
        case left
        /// The server is restarting; the page comes back by itself.
        case serverRestarting
        /// The results could not be written (the cause, for the log).
        case notSaved(String)
        /// No message for the idle limit.
        case idle
        /// Frames came too seldom to keep a slot (`FrameCadence`): how short, over which window.
        case tooFewFrames(FrameCadence.Shortfall, Duration)
        /// Another page of the same participant took over.
        case replaced
        /// The researcher deleted the participant's data.
        case erased
        /// A framing check's time ran out on the server (`FramingDeadline`), whatever the socket sent.
        case framingOver
    }

    /// What a page is told when a stimulus's socket closes.
    struct StimulusOutcome: Encodable, Sendable {
        var type = "ended"
        var stimulus: String
        /// Share of the stimulus measured, 0...1.
        var coverage: Double
        /// Share of the stimulus measured with a face, 0...1.
        var faceCoverage: Double?
        /// Whether it counts: played to its end and measured for at least the study's minimum share.
        var enough: Bool
        /// Attempts at this stimulus still allowed.
        var attemptsLeft: Int
        /// The participant is screened out (measured too little in every attempt allowed).
        var screenedOut: Bool
        var redirect: String?
    }

    /// Closes a socket the participant still has open (another page of theirs, on this server or another) and
    /// waits, a few seconds at most, for it to record what it measured, so the new one starts from a settled
    /// session.
    func takeOver(_ id: String) async {
        await takeOverHere(id)
        await takeOverElsewhere(id)
    }

    private func takeOverHere(_ id: String) async {
        guard let socket = local.withLock({ $0.open[id] }) else { return }
        socket.close(.replaced)
        if !(await socket.done.wait(timeout: .seconds(10))) {
            Self.logger.error("study \(name): a participant's earlier socket did not close in 10 s; replaced anyway")
            await release(id, socket.id)
        }
        closed(id, socket.id)
    }

    /// Opens a participant's stimulus socket: the stimulus must be one of theirs, not yet watched and measured
    /// enough, with an attempt left; an earlier attempt's files are set aside (`<stimulus>.attemptN.*`).
    /// - Returns: the stimulus and the attempt's number (from 1).
    /// - Throws: `ServiceRefusal` 409 / 404 / 403 `studyFull` saying why; 503 when the session cannot be saved.
    func beginStimulus(_ id: String, stimulus: String, socket: OpenSocket) async throws -> (
        stimulus: CollectionSettings.Stimulus, attempt: Int
    ) {
        guard let found = settings.stimuli.first(where: { $0.name == stimulus }) else {
            throw ServiceRefusal(
                status: .notFound, code: "notFound", message: "this study has no stimulus of that name")
        }
        let now = clock()
        let holder = SocketHolder(server: store.server, socket: socket.id)
        let cut = await unrecordedAttempt(id, stimulus: found)
        // The attempt's number, or nil when the study was full.
        let attempt = try await opening(id, socket) {
            try await kept {
                try await store.transact { [self] ledger -> Int? in
                    let number = ledger.sessions[id]?.number ?? 0
                    // Still unrecorded as the transaction sees it (no other server recorded it meanwhile).
                    let cutHere = cut.flatMap { cut in
                        ledger.sessions[id].map { Self.unrecorded($0, stimulus) == cut.number } == true ? cut : nil
                    }
                    guard
                        let start = try ledger.beginAttempt(
                            id, stimulus: stimulus, holder: holder, openHere: local.withLock { $0.open[id] != nil },
                            recovering: {
                                // What an earlier attempt left unfinished (a write failure, a kill) becomes its
                                // files first.
                                do {
                                    return try folder.recover(
                                        participant: id, stimulus: found, span: settings.fieldwork.frameSpan)
                                        ?? cutHere?.progress
                                } catch {
                                    // It stays where it is for the next start; the new attempt writes its own files.
                                    Self.logger.error(
                                        "study \(name): participant #\(number): an earlier attempt cannot be recovered yet: \(error)"
                                    )
                                    return nil
                                }
                            }, settings: settings, now: now)
                    else { return nil }
                    if let number = start.setAside {
                        try folder.setAside(participant: id, stimulus: stimulus, attempt: number)
                    }
                    try open(id, socket)
                    return start.number
                }
            }
        }
        guard let session = session(id) else {
            throw ServiceRefusal(status: .unauthorized, code: "unauthorized", message: "no such participant")
        }
        guard let attempt else {
            _ = await record(id) { session in
                session.state = .screenedOut
                session.reasonCode = .studyFull
                session.reason = "the study had all the participants it needs before they started watching"
                session.finished = SessionTime.timestamp(now)
            }
            Self.logger.info("study \(name): participant #\(session.number) turned away: the study is full")
            throw Self.studyFull
        }
        Self.logger.info(
            "study \(name): participant #\(session.number) started \(stimulus)\(attempt > 1 ? " (attempt \(attempt))" : "")"
        )
        return (found, attempt)
    }

    /// The attempt at `stimulus` a killed server began and never recorded, with what the store kept of it.
    ///
    /// Their page came back through this server before any upkeep took the killed server for gone (issue 96 item
    /// 8: the session listed no attempt while the export wrote `<stimulus>.attempt1.*`). Nil when there is none,
    /// the store kept no frame of it, or it cannot be read now (logged; the new attempt goes on).
    private func unrecordedAttempt(_ id: String, stimulus: CollectionSettings.Stimulus) async -> (
        number: Int, progress: ParticipantSession.StimulusProgress
    )? {
        guard let session = session(id), let number = Self.unrecorded(session, stimulus.name) else { return nil }
        do {
            guard var progress = try await storedProgress(participant: id, stimulus: stimulus, attempt: number)
            else { return nil }
            progress.ended = false
            return (number, progress)
        } catch {
            Self.logger.error(
                "study \(name): participant #\(session.number): what their stopped server measured cannot be read: \(error)"
            )
            return nil
        }
    }

    /// The number of the last attempt at `stimulus` begun and neither in progress nor set aside, if any.
    static func unrecorded(_ session: ParticipantSession, _ stimulus: String) -> Int? {
        guard session.stimuli[stimulus] == nil, let number = session.attemptsBegun?[stimulus], number > 0,
            !session.attempts.contains(where: { $0.stimulus == stimulus && $0.number == number })
        else { return nil }
        return number
    }

    /// Records what a stimulus socket measured when it closes; the outcome is what the page is told.
    /// - Parameter aborted: the socket never started (nothing measured, nothing recorded).
    @discardableResult
    func endStimulus(
        _ id: String, stimulus: CollectionSettings.Stimulus, progress: ParticipantSession.StimulusProgress,
        end: SocketEnd, socket: UUID, aborted: Bool = false
    ) async -> StimulusOutcome {
        let fieldwork = settings.fieldwork
        let minimum = fieldwork.minimumShare
        let enough = end == .ended && progress.counts(fieldwork)
        var outcome = StimulusOutcome(
            stimulus: stimulus.name, coverage: progress.coverage, faceCoverage: progress.faceCoverage, enough: enough,
            attemptsLeft: 0, screenedOut: false)
        closed(id, socket)
        guard !aborted else {
            await release(id, socket)
            return outcome
        }
        let now = SessionTime.timestamp(clock())
        let attempts = settings.fieldwork.attemptsPerStimulus
        // Decides the attempts left, and whether this ends the participant's study (screened out).
        let recorded = await recordDeciding(id, releasing: socket) {
            session, standing -> (left: Int, screenedOut: Bool) in
            guard standing != .superseded else {
                return (max(0, attempts - session.attemptCount(stimulus.name)), false)
            }
            var progress = progress
            progress.recordingOnset = session.stimuli[stimulus.name]?.recordingOnset
            session.stimuli[stimulus.name] = progress
            session.lastSeen = now
            let left = attempts - session.attemptCount(stimulus.name)
            // Taken for gone with this server while it still served them (it could not reach the database for a
            // lease while others could: fleet-faults seed 3 after a database restart), and the attempt ended measured
            // enough: that is the evidence it was not. They go on, so that their completion is not refused.
            if session.state == .incomplete, session.reasonCode == .serverStopped, enough, standing == .speaks,
                session.step == stimulus.name
            {
                session.state = .started
                (session.reasonCode, session.reason, session.finished) = (nil, nil, nil)
            }
            guard session.state == .started else { return (max(0, left), false) }  // ended meanwhile
            let measured = SessionTime.percent(progress.coverage)
            switch end {
            case .ended where enough:
                break
            case .ended where left > 0:
                break  // measured too little: the page offers the stimulus again
            case .ended:
                session.state = .screenedOut
                session.reasonCode = .tooLittleMeasured
                session.reason =
                    progress.lacksFace(fieldwork)
                    ? "\(stimulus.name) was measured with a face for \(SessionTime.percent(progress.faceCoverage ?? 0)) (minimum \(SessionTime.percent(fieldwork.faceShareNeeded))) in every attempt"
                    : "\(stimulus.name) was measured for \(measured) (minimum \(SessionTime.percent(minimum))) in every attempt"
                session.finished = now
                return (0, true)
            case .replaced, .erased, .framingOver:
                break  // another page of theirs goes on, or they are gone (a framing end never reaches here)
            case .left, .serverRestarting, .idle, .tooFewFrames, .notSaved:
                // Their page went on through another server: it says where they are.
                guard standing == .speaks else { break }
                session.state = .incomplete
                session.finished = now
                // Its next socket goes to the back of the queue, not before newcomers.
                if case .tooFewFrames = end { session.slotLost = now }
                (session.reasonCode, session.reason) =
                    switch end {
                    case .serverRestarting:
                        (.serverStopped, "the server restarted during \(stimulus.name) (\(measured) measured)")
                    case .idle: (.idle, "no frame for the idle limit during \(stimulus.name) (\(measured) measured)")
                    case .tooFewFrames(let short, let window):
                        (
                            .tooFewFrames,
                            "frames came too seldom during \(stimulus.name) (\(short.frames) in \(window.components.seconds) s, \(short.needed) needed; \(measured) measured)"
                        )
                    case .notSaved: (.notSaved, "results of \(stimulus.name) could not be saved (\(measured) measured)")
                    default: (.left, "left during \(stimulus.name) (\(measured) of it measured)")
                    }
            }
            return (max(0, left), false)
        }
        let session = recorded?.session
        outcome.attemptsLeft = recorded?.decision.left ?? 0
        outcome.screenedOut = recorded?.decision.screenedOut ?? false
        if outcome.screenedOut { outcome.redirect = screenoutRedirect(participant: id, reason: "tooLittleMeasured") }
        if let session {
            let how =
                switch end {
                case .ended: enough ? "watched" : "watched, measured too little"
                case .left: "left"
                case .serverRestarting: "interrupted by a restart"
                case .notSaved(let cause): "NOT SAVED (\(logged(cause, of: id, number: session.number)))"
                case .idle: "idle, closed"
                case .tooFewFrames: "closed: frames came too seldom"
                case .replaced: "went on in another page"
                case .erased: "erased"
                case .framingOver: "framing check over"
                }
            let line: Logger.Message =
                "study \(name): participant #\(session.number) \(how) \(stimulus.name): \(SessionTime.percent(progress.coverage)) measured, \(progress.analysed) of \(progress.frames) frames analysed"
            if case .notSaved = end { Self.logger.error(line) } else { Self.logger.info(line) }
        }
        return outcome
    }
}
