package import Foundation
import Mien

/// A stimulus attempt's start as a decision over the ledger: who may start which stimulus, the attempt's number, and
/// the earlier attempt set aside under its own. `CollectedStudy.beginStimulus` runs it inside one store transaction
/// and moves the files it says; the tests run it on a value (`StudyLedgerAdmissionTests`).
extension StudyLedger {
    /// What starting an attempt decided.
    package struct AttemptStart: Sendable, Equatable {
        /// The attempt's number: one past every attempt begun, recorded or not.
        package var number: Int
        /// The earlier attempt whose files are set aside under its number (`<stimulus>.attemptN.*`), if it measured
        /// a frame.
        package var setAside: Int?
    }

    /// Decides the start of an attempt at `stimulus` for `id`, opened by `holder`, and keeps it.
    ///
    /// The stimulus must be one of theirs, not yet watched and measured enough, their framing check seen, with an
    /// attempt left and no other socket of theirs open; a participant who has not started watching is turned away
    /// when the study is full (its cap), or when their place toward a target lapsed and none is free.
    /// - Parameters:
    ///   - openHere: whether another socket of theirs is open on this server (a place the ledger says this server
    ///     holds is free to it otherwise).
    ///   - recovering: what an earlier attempt left unfinished (a write failure, a kill), recovered into its files;
    ///     asked only once the start is allowed (no socket of theirs open anywhere, whose files it would take).
    /// - Returns: nil when the study is full or the group's target met (nothing changed).
    /// - Throws: `StudyRefusal` saying why (an unknown participant, not their stimulus, a conflict with their session).
    package mutating func beginAttempt(
        _ id: String, stimulus: String, holder: SocketHolder, openHere: Bool,
        recovering: () -> ParticipantSession.StimulusProgress?, settings: CollectionSettings, now: Date
    ) throws -> AttemptStart? {
        guard var session = sessions[id] else {
            throw StudyRefusal.noSuchParticipant
        }
        let fieldwork = settings.fieldwork
        guard session.state == .started else {
            // Turned away over quota at their framing check: the page sends them to the panel's over-quota link.
            if session.reasonCode == .studyFull { throw StudyRefusal.studyFull }
            throw StudyRefusal.sessionEnded(session.state.rawValue)
        }
        guard session.order.contains(stimulus) else {
            throw StudyRefusal(.notFound, code: "notFound", message: "this is not one of your stimuli")
        }
        if let progress = session.stimuli[stimulus], progress.counts(fieldwork) {
            throw StudyRefusal(.conflict, code: "alreadyWatched", message: "\(stimulus) was already watched")
        }
        guard socketFree(of: id, for: holder.server), !openHere else {
            throw StudyRefusal.alreadyStreaming
        }
        // The framing check is the server's, not the page's alone: a client that skips it gets no stimulus.
        guard session.framed != nil else { throw StudyRefusal.notFramed }
        guard session.attemptCount(stimulus) < fieldwork.attemptsPerStimulus else {
            throw StudyRefusal(
                .conflict, code: "noAttemptsLeft", message: "\(stimulus) cannot be started again")
        }
        if session.watchingSince == nil, let maximum = settings.maximumParticipants, sessions.watching >= maximum {
            return nil
        }
        // Their place toward the target was taken at the framing check; held `framedHold`, then asked again.
        if session.watchingSince == nil,
            (SessionTime.date(session.framed)?.timeIntervalSince(now) ?? -.infinity) < -Self.framedHold,
            placeRefused(id, open: [], settings: settings, now: now) != nil
        {
            return nil
        }
        if var recovered = recovering() {
            recovered.ended = false
            session.stimuli[stimulus] = recovered
        }
        let time = SessionTime.timestamp(now)
        let earlierNumber = session.lastAttemptBegun(stimulus)
        var setAside: Int?
        // An earlier attempt is recorded when it measured a frame or its page recorded the viewing: one shown with
        // its tab hidden throughout measured nothing, yet was an exposure, its hidden stretch judged with the rest
        // (study-check's r2). Only one that measured frames has files to set aside.
        if let earlier = session.stimuli.removeValue(forKey: stimulus), earlier.frames > 0 || earlier.viewing != nil {
            setAside = earlier.frames > 0 ? earlierNumber : nil
            let percent = SessionTime.percent
            session.attempts.append(
                .init(
                    stimulus: stimulus, number: earlierNumber, progress: earlier,
                    reason: !earlier.ended
                        ? "interrupted at \(percent(earlier.coverage))"
                        : earlier.lacksFace(fieldwork)
                            ? "measured with a face \(percent(earlier.faceCoverage ?? 0)) (minimum \(percent(fieldwork.faceShareNeeded)))"
                            : "measured \(percent(earlier.coverage)) (minimum \(percent(fieldwork.minimumShare)))",
                    ended: time))
        }
        session.watchingSince = session.watchingSince ?? time
        session.step = stimulus
        session.lastSeen = time
        // One past every attempt begun, recorded or not: a database may hold frames of one whose end was never
        // recorded, under its own number, which the new attempt must not take.
        let number = earlierNumber + 1
        session.attemptsBegun = (session.attemptsBegun ?? [:]).merging([stimulus: number]) { _, new in new }
        sessions[id] = session
        sockets[id] = holder
        return AttemptStart(number: number, setAside: setAside)
    }
}
