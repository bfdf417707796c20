import Foundation
import Mien
import MienStudies

/// The researcher's view of fieldwork: each participant as the dashboard lists them, and the counts per group
/// against the study's targets.
extension CollectedStudy {
    /// One participant as the dashboard lists them.
    struct Row: Encodable, Sendable {
        var number: Int
        var participant: String
        var group: String?
        /// `started`, `complete`, `incomplete`, `screenedOut`, or `abandoned` (started, no sign for the study's
        /// `abandonMinutes`).
        var state: String
        /// Where they are or were (`consent`: agreed, camera not yet on; `framing`; a stimulus; `upload`; `done`).
        var step: String
        var started: String
        var finished: String?
        /// From consent to the end, seconds (nil while started).
        var seconds: Double?
        /// Share of the study's stimulus time measured, 0...1 (gaps count as missing).
        var coverage: Double
        /// Share of the study's stimulus time measured with a face, 0...1 (nil before any frame).
        var faceShare: Double?
        /// Share of the frames received that were analysed, 0...1 (nil before any frame).
        var analysedShare: Double?
        /// The lowest frame rate a busy server asked their page for (nil: the study's rate throughout).
        var lowestRate: Double?
        /// The completion code the participant was shown, the one the panel pays by (Prolific's study code, or
        /// theirs).
        var code: String?
        /// Their own reference code, when the code shown is the panel's (issue 96: the dashboard showed this one
        /// while the page showed the panel's).
        var reference: String?
        var reason: String?
        var reasonCode: String?
        var framingFailures: Int
        var reentries: Int
        /// Earlier, interrupted attempts (kept apart).
        var attempts: Int
        /// Why `mien study` leaves them out, when it does.
        var exclusion: String?
        /// Complete, but not counted toward the target: the viewing rules they broke.
        var belowQuality: String?
        /// The share of the stimuli's time they watched (on screen, eyes open, the page visible), as `mien study`
        /// measures it over the stimuli they finished; nil before one, or without gaze.
        var onScreenShare: Double?
        var recordingBytes: Int
        /// Of the study's questions, how many they answered or left unanswered on a page they sent (nil: the study
        /// asks none).
        var answered: Int?
        /// What their pages recorded of the viewing, over the stimuli so far (nil: not recorded).
        var viewing: ViewingFigures?
        /// What to review before paying them (`approvals.csv`'s `review`): viewing rules broken, a face with no
        /// natural movement; nil when nothing.
        var review: String?
        /// While a stimulus socket is open: the stimulus, its time, and what is measured so far.
        var live: Live?
    }

    struct Live: Encodable, Sendable {
        var stimulus: String
        var time: Double?
        var duration: Double
        var coverage: Double
        var analysedShare: Double
        var frameRate: Double
    }

    /// Counts of one group (or the whole study, `all`).
    struct GroupCounts: Encodable, Sendable {
        var group: String
        /// Completed participants wanted (`--target`), if set.
        var target: Int?
        var agreed = 0
        /// Agreed, not yet watching (camera or framing check), not abandoned.
        var preparing = 0
        var watching = 0
        var complete = 0
        /// Of `complete`, those whose viewing broke the published rules: not counted toward the target (unless the
        /// study counts everyone), still approved.
        var belowQuality = 0
        var incomplete = 0
        var screenedOut = 0
        var abandoned = 0
        var declined = 0
        /// Those who sent every page of the study's questions.
        var answeredAll = 0
        /// Incomplete and screened out, by reason code; incomplete by step.
        var byReason: [String: Int] = [:]
        var byStep: [String: Int] = [:]
    }

    struct Summary: Encodable, Sendable {
        var study: String
        var now: String
        var groups: [GroupCounts]
        var all: GroupCounts
        /// Consents refused: the study was full (its cap or its targets); the link's group had reached its
        /// target, by group; an ID that cannot take part, by why.
        var turnedAwayFull: Int
        var turnedAwayGroupFull: [String: Int]
        /// Consents whose link gave a declared attribute an undeclared value (dropped), by attribute.
        var attributesDropped: [String: Int]
        /// Whether reaching a target closes its group to new consents (`--targets close`) or is only shown.
        var targetsClose: Bool
        var refusedIDs: [String: Int]
        /// The questions the study asks (0: none).
        var questions: Int
        var minimumShare: Double
        var reentryMinutes: Double
        var abandonMinutes: Double
    }

    /// Every participant, by number, with live progress for those watching.
    /// - Parameters:
    ///   - exclusions: why `mien study` leaves a participant out, by ID.
    ///   - onScreen: the share of their stimuli's time each watched (`ParticipantSeries.onScreenShare`), by ID.
    func rows(exclusions: [String: String], onScreen: [String: Double] = [:]) -> [Row] {
        let now = clock()
        let sessions = Array(store.current().sessions.values)
        let open = local.withLock { $0.open }
        return sessions.sorted { $0.number < $1.number }.map { original in
            var session = original
            var live: Live?
            if let socket = open[session.participant], let progress = socket.progress,
                let stimulus = settings.stimuli.first(where: { $0.name == socket.kind })
            {
                let (measured, rate) = progress()
                live = Live(
                    stimulus: stimulus.name, time: measured.lastTime, duration: stimulus.duration,
                    coverage: measured.coverage, analysedShare: measured.analysedShare, frameRate: rate)
                // The row's figures count what the stimulus being watched has measured so far.
                session.stimuli[stimulus.name] = measured
            }
            let started = SessionTime.date(session.started)
            let finished = SessionTime.date(session.finished)
            return Row(
                number: session.number, participant: session.participant, group: session.group,
                state: displayState(session, open: open[session.participant] != nil, now: now), step: session.step,
                started: session.started, finished: session.finished,
                seconds: started.flatMap { start in finished.map { ($0.timeIntervalSince(start) * 10).rounded() / 10 }
                },
                coverage: (session.coverage(of: settings) * 1000).rounded() / 1000,
                faceShare: session.faceShare(of: settings).map { ($0 * 1000).rounded() / 1000 },
                analysedShare: session.analysedShare.map { ($0 * 1000).rounded() / 1000 },
                lowestRate: session.stimuli.values.compactMap(\.lowestRate).min().flatMap {
                    $0 < settings.frameRate ? $0 : nil
                },
                code: shownCode(session), reference: reference(session), reason: session.reason,
                reasonCode: session.reasonCode?.rawValue,
                framingFailures: session.framingFailures, reentries: session.reentries,
                attempts: session.attempts.count, exclusion: exclusions[session.participant],
                belowQuality: session.belowQuality, onScreenShare: onScreen[session.participant],
                recordingBytes: session.recordingBytes,
                answered: settings.questions.map { _ in session.answers?.count ?? 0 },
                viewing: ViewingFigures.combined(
                    settings.stimuli.compactMap { stimulus in
                        session.stimuli[stimulus.name]?.figures(duration: stimulus.duration)
                    }), review: Optional(review(session)).flatMap { $0.isEmpty ? nil : $0 }, live: live)
        }
    }

    /// `started` shown as `abandoned` when nothing of theirs was seen for `abandonMinutes`.
    func displayState(_ session: ParticipantSession, open: Bool, now: Date) -> String {
        guard session.state == .started, !open else { return session.state.rawValue }
        let seen = SessionTime.date(session.lastSeen ?? session.started) ?? now
        return now.timeIntervalSince(seen) > settings.fieldwork.abandonMinutes * 60 ? "abandoned" : "started"
    }

    /// The counts per group and for the whole study, against the targets.
    func summary() async -> Summary {
        await expireConsents()
        let now = clock()
        let ledger = store.current()
        let (sessions, counts, refused) = (Array(ledger.sessions.values), ledger.counts, ledger.refusedIDs)
        let open = local.withLock { $0.open }
        var groups = Dictionary(
            uniqueKeysWithValues: settings.groups.map {
                ($0, GroupCounts(group: $0, target: settings.fieldwork.targets[$0]))
            })
        var all = GroupCounts(
            group: StudyManifest.wholePanel, target: settings.fieldwork.targets[StudyManifest.wholePanel])
        func add(_ group: String?, _ change: (inout GroupCounts) -> Void) {
            change(&all)
            if let group, groups[group] != nil { change(&groups[group, default: GroupCounts(group: group)]) }
        }
        for session in sessions {
            let shown = displayState(session, open: open[session.participant] != nil, now: now)
            let answeredAll = settings.questions != nil && session.unanswered(settings).isEmpty
            add(session.group) { counts in
                counts.agreed += 1
                if answeredAll { counts.answeredAll += 1 }
                switch shown {
                case "complete":
                    counts.complete += 1
                    if session.belowQuality != nil { counts.belowQuality += 1 }
                case "abandoned": counts.abandoned += 1
                case "screenedOut":
                    counts.screenedOut += 1
                    counts.byReason[session.reasonCode?.rawValue ?? "other", default: 0] += 1
                case "incomplete":
                    counts.incomplete += 1
                    counts.byReason[session.reasonCode?.rawValue ?? "other", default: 0] += 1
                    counts.byStep[session.step, default: 0] += 1
                default:
                    if session.watchingSince == nil { counts.preparing += 1 } else { counts.watching += 1 }
                }
            }
        }
        for (group, declined) in counts.declined {
            add(group.isEmpty ? nil : group) { $0.declined += declined }
        }
        return Summary(
            study: name, now: SessionTime.timestamp(now), groups: settings.groups.compactMap { groups[$0] }, all: all,
            turnedAwayFull: counts.turnedAwayFull, turnedAwayGroupFull: counts.turnedAwayGroupFull,
            attributesDropped: counts.attributesDropped,
            targetsClose: settings.fieldwork.targetsClose == true, refusedIDs: refused,
            questions: settings.questions?.questions.count ?? 0, minimumShare: settings.fieldwork.minimumShare,
            reentryMinutes: settings.fieldwork.reentryMinutes, abandonMinutes: settings.fieldwork.abandonMinutes)
    }
}
