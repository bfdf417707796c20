import Foundation
package import Mien

/// One participant of a collected study, as the study folder keeps it: `participants/<id>/session.json`.
///
/// Holds no picture, and of what the participant typed only their ID and their answers to the study's questions:
/// where they are in the flow, which group and order they were given, and per stimulus how much of it was measured. The token the server issued at
/// consent is kept only as its SHA-256, so the file cannot be used to write as them.
package struct ParticipantSession: Sendable, Codable, Equatable {
    /// Where a participant is in the flow.
    package enum State: String, Sendable, Codable, CaseIterable {
        /// Agreed; camera, framing check or a stimulus under way.
        case started
        /// Watched every stimulus to its end, each measured for at least the study's minimum share.
        case complete
        /// Left before the end (tab closed, network lost, reload, server restarted, results not saved); what
        /// was measured is kept, and the same ID may come back within the study's re-entry window.
        case incomplete
        /// Could not take part (no camera, no face framed, a stimulus measured too little every time); sent
        /// back to the panel with the study's screen-out code.
        case screenedOut
    }

    /// Why a participant is incomplete or screened out, as a code the dashboard counts by.
    package enum Reason: String, Sendable, Codable, CaseIterable {
        /// The socket of a stimulus closed before its end (tab closed, reload, network lost).
        case left
        /// The server stopped or restarted during the session.
        case serverStopped
        /// The server could not save their results (a full disk, an I/O error).
        case notSaved
        /// No message for the idle limit.
        case idle
        /// A stimulus socket's frames came at less than a quarter of the rate asked: it lost its slot (and the
        /// priority of those already watching for its next socket).
        case tooFewFrames
        /// The camera could not be turned on.
        case noCamera
        /// The framing check did not pass in the tries the study allows.
        case noFace
        /// A stimulus was measured for less than the study's minimum share in every attempt allowed.
        case tooLittleMeasured
        /// The study reached its cap of participants watching before this one started.
        case studyFull
    }

    /// What was measured of one stimulus.
    package struct StimulusProgress: Sendable, Codable, Equatable {
        /// Frames the page sent (and the server accepted).
        package var frames = 0
        /// Of those, frames analysed (the rest were dropped when analysis fell behind).
        package var analysed = 0
        /// Analysed frames with a face.
        package var withFace = 0
        /// The last frame's stimulus time, in seconds.
        package var lastTime: Double?
        /// Share of the stimulus's duration measured, 0...1: the time around each analysed frame (up to the
        /// study's `Fieldwork.frameSpan`), so gaps count as missing.
        package var coverage = 0.0
        /// Share of the stimulus's duration measured with a face, 0...1 (as `coverage`, frames with a face only).
        package var faceCoverage: Double?
        /// Whether the page said the stimulus played to its end.
        package var ended = false
        /// The lowest frame rate the server asked the page for during the stimulus (frames per second).
        package var lowestRate: Double?
        /// Where in the webcam recording the stimulus started, in seconds (with `record`).
        package var recordingOnset: Double?
        /// What the page recorded of the viewing (hidden, full screen, stalls, camera, timing); nil when it sent
        /// nothing ("viewing not recorded": an older page, or a client with no page).
        package var viewing: Viewing?
        /// The longest stretch in which the face showed no natural movement (`Stillness`), seconds of stimulus time;
        /// nil before a face frame (or in a session recorded before it was measured).
        package var stillSeconds: Double?

        package init() {}

        /// Whether this stimulus counts toward completion: played to its end, measured for at least the study's
        /// `minimumShare` of its time, and with a face for at least its `faceShareNeeded` (a progress recorded
        /// before faces were counted has no `faceCoverage` and is judged on its measured share alone).
        package func counts(_ fieldwork: CollectionSettings.Fieldwork) -> Bool {
            ended && coverage >= fieldwork.minimumShare - 1e-9
                && (faceCoverage ?? 1) >= fieldwork.faceShareNeeded - 1e-9
        }

        /// Whether it was measured for the study's minimum share but too little of it with a face.
        package func lacksFace(_ fieldwork: CollectionSettings.Fieldwork) -> Bool {
            coverage >= fieldwork.minimumShare - 1e-9 && (faceCoverage ?? 1) < fieldwork.faceShareNeeded - 1e-9
        }

        /// Share of the frames received that were analysed (1 when none arrived).
        package var analysedShare: Double { frames > 0 ? Double(analysed) / Double(frames) : 1 }
    }

    /// An earlier, interrupted attempt at a stimulus: its files are kept apart
    /// (`<stimulus>.attempt<number>.jsonl`, …) and listed here, never in the manifest.
    package struct Attempt: Sendable, Codable, Equatable {
        package var stimulus: String
        /// 1 for the first attempt.
        package var number: Int
        package var progress: StimulusProgress
        /// Why it ended early, in words.
        package var reason: String
        /// When it was set aside (ISO 8601).
        package var ended: String

        package init(stimulus: String, number: Int, progress: StimulusProgress, reason: String, ended: String) {
            self.stimulus = stimulus
            self.number = number
            self.progress = progress
            self.reason = reason
            self.ended = ended
        }
    }

    package var participant: String
    /// The participant's place in the order of consents, from 1 (the server's log names participants by it).
    package var number: Int
    package var group: String?
    /// The stimuli in the order this participant watches them.
    package var order: [String]
    package var state: State
    /// ISO 8601 times of consent and of the end (complete, left, screened out).
    package var started: String
    package var finished: String?
    /// The last time a socket or request of theirs was seen (ISO 8601).
    package var lastSeen: String?
    /// When they first started a stimulus (nil: never; the study's cap counts only those who did).
    package var watchingSince: String?
    /// Where they are or were: `consent`, `framing`, a stimulus's name, `upload` or `done`.
    package var step: String
    /// SHA-256 (hex) of the participant's token.
    package var tokenDigest: String
    package var stimuli: [String: StimulusProgress]
    /// Earlier attempts of stimuli, in the order they were set aside.
    package var attempts: [Attempt]
    /// The number of the last attempt begun at each stimulus, recorded or not (nil in sessions written before it
    /// was kept): a new attempt is one past it, so numbers never repeat, even after an attempt whose end a
    /// database outage or a killed server never recorded.
    package var attemptsBegun: [String: Int]?
    /// Framing checks that ended without passing (the page closed or gave up while the face was not framed).
    package var framingFailures: Int
    /// When the server last saw a framing check of this session pass (ISO 8601), since its token was given: a
    /// stimulus needs one (nil: none yet, or the ID was given a new token by consenting again).
    package var framed: String?
    /// Why the participant is incomplete or screened out, in words (`nil` while started or when complete).
    package var reason: String?
    package var reasonCode: Reason?
    /// Times the same ID came back after leaving.
    package var reentries: Int
    /// When a stimulus socket of theirs last lost its slot for sending too few frames (ISO 8601): their next socket
    /// waits in the queue without the priority of those already watching (nil: never).
    package var slotLost: String?
    /// The completion code they were given.
    package var code: String?
    /// Where the participant's screen's centre is, degrees from the camera's direction ([yaw, pitch]): where they
    /// looked while the framing check showed them their picture, moved by where the picture was on their screen
    /// when the page said so; nil before a check that measured it.
    package var screenLook: [Double]?
    /// Their resting face as the framing check that passed learnt it (`NeutralBaseline.Carried`): each stimulus's
    /// analysis starts from it, so it is read against their own neutral face from its first frame (issue 95 item 1);
    /// nil before such a check (a stimulus then settles over its first second, its frames flagged `settling`).
    package var neutral: NeutralBaseline.Carried?
    /// Why a complete participant does not count toward their group's target: the viewing rules their viewing broke
    /// (`CollectionSettings.Fieldwork.targetsCountEveryone`); nil when they count.
    package var belowQuality: String?
    /// The webcam recording's bytes received so far, and whether the upload finished (with `record`).
    package var recordingBytes: Int
    package var recordingComplete: Bool
    /// Their answers to the study's questions, a page at a time as sent (nil: none yet, or the study asks none).
    package var answers: [StudyAnswer]?
    /// What their panel's link said of them, as the study declared it (`PanelAttribute.kept`; nil: nothing).
    package var attributes: [String: String]?

    package init(
        participant: String, number: Int, group: String?, order: [String], tokenDigest: String, started: String
    ) {
        self.participant = participant
        self.number = number
        self.group = group
        self.order = order
        state = .started
        self.started = started
        lastSeen = started
        step = "consent"
        self.tokenDigest = tokenDigest
        stimuli = [:]
        attempts = []
        framingFailures = 0
        reentries = 0
        recordingBytes = 0
        recordingComplete = false
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        participant = try container.decode(String.self, forKey: .participant)
        number = try container.decodeIfPresent(Int.self, forKey: .number) ?? 0
        group = try container.decodeIfPresent(String.self, forKey: .group)
        order = try container.decode([String].self, forKey: .order)
        state = try container.decode(State.self, forKey: .state)
        started = try container.decode(String.self, forKey: .started)
        finished = try container.decodeIfPresent(String.self, forKey: .finished)
        lastSeen = try container.decodeIfPresent(String.self, forKey: .lastSeen)
        watchingSince = try container.decodeIfPresent(String.self, forKey: .watchingSince)
        step = try container.decodeIfPresent(String.self, forKey: .step) ?? "consent"
        tokenDigest = try container.decode(String.self, forKey: .tokenDigest)
        stimuli = try container.decodeIfPresent([String: StimulusProgress].self, forKey: .stimuli) ?? [:]
        attempts = try container.decodeIfPresent([Attempt].self, forKey: .attempts) ?? []
        attemptsBegun = try container.decodeIfPresent([String: Int].self, forKey: .attemptsBegun)
        framingFailures = try container.decodeIfPresent(Int.self, forKey: .framingFailures) ?? 0
        framed = try container.decodeIfPresent(String.self, forKey: .framed)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        reasonCode = try container.decodeIfPresent(Reason.self, forKey: .reasonCode)
        reentries = try container.decodeIfPresent(Int.self, forKey: .reentries) ?? 0
        slotLost = try container.decodeIfPresent(String.self, forKey: .slotLost)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        belowQuality = try container.decodeIfPresent(String.self, forKey: .belowQuality)
        screenLook = try container.decodeIfPresent([Double].self, forKey: .screenLook)
        neutral = try container.decodeIfPresent(NeutralBaseline.Carried.self, forKey: .neutral)
        recordingBytes = try container.decodeIfPresent(Int.self, forKey: .recordingBytes) ?? 0
        recordingComplete = try container.decodeIfPresent(Bool.self, forKey: .recordingComplete) ?? false
        answers = try container.decodeIfPresent([StudyAnswer].self, forKey: .answers)
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes)
    }

    /// Their answer to the question with this ID, if its page was sent.
    package func answer(_ question: String) -> StudyAnswer? { answers?.first { $0.question == question } }

    /// The share of the study's stimuli time this participant was measured for, 0...1.
    package func coverage(of settings: CollectionSettings) -> Double {
        let total = settings.stimuli.reduce(0) { $0 + $1.duration }
        let covered = settings.stimuli.reduce(0) { $0 + (stimuli[$1.name]?.coverage ?? 0) * $1.duration }
        return total > 0 ? covered / total : 0
    }

    /// Share of the study's stimuli time measured with a face, 0...1 (nil before any frame).
    package func faceShare(of settings: CollectionSettings) -> Double? {
        guard stimuli.values.contains(where: { $0.faceCoverage != nil }) else { return nil }
        let total = settings.stimuli.reduce(0) { $0 + $1.duration }
        let covered = settings.stimuli.reduce(0) { $0 + (stimuli[$1.name]?.faceCoverage ?? 0) * $1.duration }
        return total > 0 ? covered / total : 0
    }

    /// Share of the frames received that were analysed, over every stimulus (nil before any frame).
    package var analysedShare: Double? {
        let frames = stimuli.values.reduce(0) { $0 + $1.frames }
        return frames > 0 ? Double(stimuli.values.reduce(0) { $0 + $1.analysed }) / Double(frames) : nil
    }

    /// Attempts made at `stimulus` so far (the current one included, if any).
    package func attemptCount(_ stimulus: String) -> Int {
        attempts.filter { $0.stimulus == stimulus }.count + (stimuli[stimulus] == nil ? 0 : 1)
    }

    /// The number of the last attempt begun at `stimulus` (0: none).
    package func lastAttemptBegun(_ stimulus: String) -> Int {
        attemptsBegun?[stimulus] ?? attemptCount(stimulus)
    }

    /// The number of the attempt at `stimulus` that is not set aside: the last begun (in sessions written before
    /// that was kept, one past those set aside).
    package func currentAttempt(_ stimulus: String) -> Int {
        attemptsBegun?[stimulus] ?? attempts.filter { $0.stimulus == stimulus }.count + 1
    }

    /// The screen their stimuli's `onScreen` is judged against: a laptop's, centred where they looked during the
    /// framing check; nil when it was not measured.
    package var screen: ScreenGeometry? {
        guard let look = screenLook, look.count == 2 else { return nil }
        return ScreenGeometry.laptop.centred(onYaw: look[0], pitch: look[1])
    }

    /// The viewing rules (`ViewingRules.standard`) each stimulus's exposures together break, "stimulus: rule …"; empty
    /// when none does or nothing was recorded.
    package func viewingBroken(_ settings: CollectionSettings) -> [String] {
        settings.stimuli.flatMap { stimulus -> [String] in
            // Every exposure, as the report judges them (issue 95 item 2): a clean replay does not make up for a
            // viewing broken before it; the viewer saw part of the stimulus twice.
            guard let figures = exposureFigures(of: stimulus.name, duration: stimulus.duration) else { return [] }
            return ViewingRules.standard.broken(by: figures, duration: stimulus.duration).map {
                "\(stimulus.name): \($0)"
            }
        }
    }

    /// Whether every stimulus played to its end, each measured (and with a face) for the study's minimum shares.
    package func measuredEnough(_ fieldwork: CollectionSettings.Fieldwork) -> Bool {
        order.allSatisfy { name in stimuli[name]?.counts(fieldwork) ?? false }
    }
}
