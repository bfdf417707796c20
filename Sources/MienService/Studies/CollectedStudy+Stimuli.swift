import Foundation
import HTTPTypes
import Logging
import Mien
import Synchronization

/// A participant's sockets and their end: one stimulus (or framing check) at a time, each stimulus's
/// measurement recorded when its socket closes, and completion once every stimulus was watched.
extension CollectedStudy {
    /// Opens a participant's stimulus socket: the stimulus must be one of theirs, not yet watched to its end,
    /// and no other socket of theirs open.
    /// - Throws: `ServiceRefusal` 409 / 404 saying why.
    func beginStimulus(_ id: String, stimulus: String) throws -> CollectionSettings.Stimulus {
        guard let found = settings.stimuli.first(where: { $0.name == stimulus }) else {
            throw ServiceRefusal(
                status: .notFound, code: "notFound", message: "this study has no stimulus of that name")
        }
        try state.withLock { state in
            guard let session = state.sessions[id] else {
                throw ServiceRefusal(status: .unauthorized, code: "unauthorized", message: "no such participant")
            }
            guard session.state == .started else {
                throw ServiceRefusal(
                    status: .conflict, code: "sessionEnded",
                    message: "this session has ended (\(session.state.rawValue))")
            }
            guard session.stimuli[stimulus]?.ended != true else {
                throw ServiceRefusal(
                    status: .conflict, code: "alreadyWatched", message: "\(stimulus) was already watched")
            }
            guard state.streaming.insert(id).inserted else {
                throw ServiceRefusal(
                    status: .conflict, code: "alreadyStreaming",
                    message: "another page of this participant is sending frames")
            }
        }
        return found
    }

    /// Records what a stimulus socket measured when it closes; a stimulus not played to its end leaves the
    /// participant incomplete, with its coverage.
    /// - Parameter aborted: the socket never started (nothing measured, nothing recorded).
    func endStimulus(
        _ id: String, stimulus: CollectionSettings.Stimulus, progress: ParticipantSession.StimulusProgress,
        aborted: Bool = false
    ) {
        let changed = state.withLock { state -> ParticipantSession? in
            state.streaming.remove(id)
            guard !aborted, var session = state.sessions[id] else { return nil }  // deleted meanwhile
            var progress = progress
            progress.recordingOnset = session.stimuli[stimulus.name]?.recordingOnset
            session.stimuli[stimulus.name] = progress
            if !progress.ended {
                session.state = .incomplete
                session.finished = Self.now()
                session.reason =
                    "left during \(stimulus.name) (\(Int((progress.coverage * 100).rounded())) % of it measured)"
            }
            state.sessions[id] = session
            state.generation += 1
            return session
        }
        guard let changed else { return }
        do { try persist(changed) } catch { Self.logger.warning("study \(name): \(error)") }
    }

    /// Opens a participant's framing-check socket (one socket of theirs at a time).
    /// - Throws: `ServiceRefusal` 409 when their session has ended or another socket of theirs is open.
    func beginFraming(_ id: String) throws {
        try state.withLock { state in
            guard state.sessions[id]?.state == .started else {
                throw ServiceRefusal(status: .conflict, code: "sessionEnded", message: "this session has ended")
            }
            guard state.streaming.insert(id).inserted else {
                throw ServiceRefusal(
                    status: .conflict, code: "alreadyStreaming",
                    message: "another page of this participant is sending frames")
            }
        }
    }

    /// A framing check that ended without passing.
    func framingFailed(_ id: String) {
        let changed = state.withLock { state -> ParticipantSession? in
            state.streaming.remove(id)
            state.sessions[id]?.framingFailures += 1
            return state.sessions[id]
        }
        guard let changed else { return }
        do {
            try persist(changed, manifests: false)
        } catch {
            Self.logger.warning("study \(name): a framing failure could not be recorded: \(error)")
        }
    }

    func framingEnded(_ id: String) { state.withLock { _ = $0.streaming.remove(id) } }

    /// Marks the participant complete once every stimulus was watched to its end.
    /// - Returns: the completion URL with the participant and their code, if the study has one, and the code.
    /// - Throws: `ServiceRefusal` 409 naming the stimuli not yet watched.
    func complete(_ id: String) throws -> (url: String?, code: String) {
        let session = try state.withLock { state -> ParticipantSession in
            guard var session = state.sessions[id], session.state == .started else {
                throw ServiceRefusal(status: .conflict, code: "sessionEnded", message: "this session has already ended")
            }
            let missing = session.order.filter { session.stimuli[$0]?.ended != true }
            guard missing.isEmpty else {
                throw ServiceRefusal(
                    status: .conflict, code: "notWatched",
                    message: "not yet watched: \(missing.joined(separator: ", "))")
            }
            if settings.record, !session.recordingComplete {
                throw ServiceRefusal(
                    status: .conflict, code: "recordingMissing", message: "the webcam recording has not been uploaded")
            }
            session.state = .complete
            session.finished = Self.now()
            state.sessions[id] = session
            state.generation += 1
            return session
        }
        try persist(session)
        let code = String(ModelStore.sha256(Data((session.tokenDigest + name).utf8)).prefix(8)).uppercased()
        guard let base = settings.completionURL, var components = URLComponents(string: base) else {
            return (nil, code)
        }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "participant", value: id), URLQueryItem(name: "code", value: code),
            ]
        return (components.string, code)
    }
}
