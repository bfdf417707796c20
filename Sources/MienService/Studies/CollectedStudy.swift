import Foundation
import HTTPTypes
import Logging
import Mien
import MienCore

/// One study folder served by `mien serve --studies`: its participants, their tokens, and every write into
/// the folder, each under this study's lock and made whole before it is renamed into place.
///
/// A participant is known by their ID (`CollectionSettings.isName`, checked before any path is made from it)
/// and writes with the token issued at consent, which is bound to that ID and this study; the folder keeps only
/// the token's SHA-256. Only one socket per participant is open at a time, so two pages never write the same
/// files.
///
/// A change that gives a participant something (a place, a completion code) is written to the folder first and
/// applied in memory only once written, so a failing disk never leaves a participant told something the folder
/// does not hold; a change that takes something away (left, not saved) is applied in memory even when it cannot
/// be written, so the server never acts on a state the participant no longer has.
final class CollectedStudy: Sendable {
    let name: String
    let folder: CollectionFolder
    let settings: CollectionSettings
    /// The wall clock (a test's own, to pass re-entry windows and expiries).
    let clock: @Sendable () -> Date

    static let logger = Logger(label: "mien.studies")

    struct State {
        var sessions: [String: ParticipantSession] = [:]
        /// Token digest to participant ID.
        var tokens: [String: String] = [:]
        /// Participants with a socket open, and how to close it when another page of theirs takes over.
        var open: [String: OpenSocket] = [:]
        /// Bytes of each participant's webcam upload so far (with `record`).
        var uploads: [String: Int] = [:]
        /// Those who never became participants (declined, study full).
        var counts = FieldworkCounts()
        /// Consents refused for an ID that cannot take part, by why (for the researcher; the page is told only
        /// that it cannot).
        var refusedIDs: [String: Int] = [:]
        /// The next participant's number.
        var nextNumber = 1
        /// Bumped at every change of the measured data (the dashboard's page is recomputed when it moved).
        var generation = 0
    }
    let state = Locked(State())

    /// A participant's open socket: its kind (`framing` or a stimulus's name), its live progress, what closes
    /// it, and when it finished closing (its measurement recorded).
    struct OpenSocket: Sendable {
        let id = UUID()
        var kind: String
        var opened: Date
        /// What it has measured so far, and the rate the page is asked for (a stimulus socket).
        var progress: (@Sendable () -> (ParticipantSession.StimulusProgress, Double))?
        var close: @Sendable (_ end: SocketEnd) -> Void
        let done = Completion()
    }

    /// Loads the study and its participants.
    ///
    /// What a server killed mid-stimulus left is recovered into result files (`CollectionFolder.recover`); a participant left `started` is marked incomplete (what it measured
    /// stays, and the ID may come back within the re-entry window).
    /// - Throws: `MienError` naming the folder or a stimulus whose SHA-256 no longer matches.
    init(folder: URL, clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.folder = CollectionFolder(folder)
        self.clock = clock
        name = folder.lastPathComponent
        settings = try CollectionSettings.read(folder: folder)
        for stimulus in settings.stimuli {
            let path = self.folder.stimuli.appendingPathComponent(stimulus.file).path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MienError(.notFound, "the stimulus \(stimulus.name) is missing", input: path)
            }
            guard ModelStore.sha256(data) == stimulus.sha256 else {
                throw MienError(
                    .corruptData, "the stimulus \(stimulus.name) changed since mien study init (SHA-256 differs)",
                    input: path)
            }
        }
        let (sessions, problems) = self.folder.sessions()
        for problem in problems {
            Self.logger.warning("study \(folder.lastPathComponent): a session cannot be read: \(problem)")
        }
        var restored = State()
        restored.counts = try FieldworkCounts.read(self.folder)
        for var session in sessions {
            if recoverLeftovers(&session) || session.state == .started {
                if session.state == .started {
                    session.state = .incomplete
                    session.reasonCode = .serverStopped
                    session.reason = session.reason ?? "the server stopped during \(Self.stepWords(session.step))"
                    session.finished = session.finished ?? Self.timestamp(clock())
                }
                try self.folder.write(session)
            }
            restored.sessions[session.participant] = session
            restored.tokens[session.tokenDigest] = session.participant
            restored.nextNumber = max(restored.nextNumber, session.number + 1)
        }
        state.withLock { $0 = restored }
        try self.folder.writeManifests(sessions.map { restored.sessions[$0.participant] ?? $0 }, settings: settings)
    }

    /// Recovers the result files a killed server left of the session's stimuli into committed ones, with their
    /// progress; a leftover that cannot be recovered yet (a full disk) stays for the next start.
    /// - Returns: whether anything was recovered.
    private func recoverLeftovers(_ session: inout ParticipantSession) -> Bool {
        var recovered = false
        for stimulus in settings.stimuli where session.order.contains(stimulus.name) {
            do {
                guard
                    var progress = try folder.recover(
                        participant: session.participant, stimulus: stimulus, span: settings.fieldwork.frameSpan)
                else { continue }
                progress.recordingOnset = session.stimuli[stimulus.name]?.recordingOnset
                progress.lowestRate = session.stimuli[stimulus.name]?.lowestRate
                session.stimuli[stimulus.name] = progress
                session.state = .incomplete
                session.reasonCode = .serverStopped
                session.reason =
                    "the server stopped during \(stimulus.name) (\(Self.percent(progress.coverage)) of it measured)"
                session.finished = session.finished ?? Self.timestamp(clock())
                recovered = true
                Self.logger.warning(
                    "study \(name): participant #\(session.number): \(progress.analysed) frames of \(stimulus.name) recovered after the server stopped"
                )
            } catch {
                Self.logger.error(
                    "study \(name): participant #\(session.number): what was measured of \(stimulus.name) cannot be recovered yet: \(error)"
                )
            }
        }
        return recovered
    }

    static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func date(_ text: String?) -> Date? { text.flatMap { ISO8601DateFormatter().date(from: $0) } }

    static func digest(_ token: String) -> String { ModelStore.sha256(Data(token.utf8)) }

    static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded())) %" }

    /// A step (`ParticipantSession.step`) in words, for reasons and logs.
    static func stepWords(_ step: String) -> String {
        switch step {
        case "consent": "the camera step"
        case "framing": "the framing check"
        case "upload": "the upload"
        case "done": "the end"
        default: step
        }
    }

    /// The participant a token was issued to.
    /// - Throws: `ServiceRefusal` 401 for a missing or unknown token.
    func participant(token: String?) throws -> String {
        guard let token, !token.isEmpty else {
            throw ServiceRefusal(
                status: .unauthorized, code: "unauthorized",
                message: "this needs the participant's session token (given at consent)")
        }
        guard let id = state.withLock({ $0.tokens[Self.digest(token)] }) else {
            throw ServiceRefusal(
                status: .unauthorized, code: "unauthorized", message: "the session token is not one of this study's")
        }
        return id
    }

    func session(_ id: String) -> ParticipantSession? { state.withLock { $0.sessions[id] } }

    var sessions: [ParticipantSession] {
        state.withLock { Array($0.sessions.values) }.sorted { $0.number < $1.number }
    }

    var generation: Int { state.withLock { $0.generation } }

    /// Deletes every file of a participant and forgets them (the right to erasure); a socket of theirs still
    /// open is closed first.
    /// - Returns: false for an unknown participant.
    /// - Throws: `.ioFailure` when their folder cannot be removed.
    func delete(_ id: String) throws -> Bool {
        let (removed, socket) = state.withLock { state -> (Bool, OpenSocket?) in
            guard let session = state.sessions.removeValue(forKey: id) else { return (false, nil) }
            state.tokens.removeValue(forKey: session.tokenDigest)
            state.uploads.removeValue(forKey: id)
            state.generation += 1
            return (true, state.open.removeValue(forKey: id))
        }
        guard removed else { return false }
        socket?.close(.erased)
        do {
            if FileManager.default.fileExists(atPath: folder.participant(id).path) {
                try FileManager.default.removeItem(at: folder.participant(id))
            }
        } catch {
            throw MienError(.ioFailure, "cannot delete the participant's files: \(error)", input: "participant \(id)")
        }
        try writeManifests()
        Self.logger.info("study \(name): a participant's data was deleted (erasure)")
        return true
    }

    // MARK: - Files

    /// Writes `session` and, once written, makes it the participant's state (under the lock, so two changes
    /// never cross); `change` may refuse by throwing.
    /// - Returns: the session written.
    /// - Throws: what `change` throws, or `ServiceRefusal` 503 when the folder cannot be written (logged with
    ///   the file; the participant is told only that the server cannot save now).
    @discardableResult
    func commit(_ id: String, _ change: (inout ParticipantSession, inout State) throws -> Void) throws
        -> ParticipantSession
    {
        let session = try state.withLock { state -> ParticipantSession in
            guard var session = state.sessions[id] else {
                throw ServiceRefusal(status: .unauthorized, code: "unauthorized", message: "no such participant")
            }
            var draft = state
            try change(&session, &draft)
            try write(session)
            draft.sessions[id] = session
            draft.generation += 1
            state = draft
            return session
        }
        writeManifestsLogging()
        return session
    }

    /// Applies `change` in memory, then writes it; a write that fails is logged, the change stays (it takes
    /// something away: the participant must not be able to act on the state they had).
    @discardableResult
    func record(_ id: String, _ change: (inout ParticipantSession) -> Void) -> ParticipantSession? {
        let session = state.withLock { state -> ParticipantSession? in
            guard var session = state.sessions[id] else { return nil }  // deleted meanwhile
            change(&session)
            state.sessions[id] = session
            state.generation += 1
            do {
                try folder.write(session)
            } catch {
                Self.logger.error("study \(name): participant #\(session.number)'s session cannot be saved: \(error)")
            }
            return session
        }
        if session != nil { writeManifestsLogging() }
        return session
    }

    /// Writes a session file (the caller holds the lock).
    /// - Throws: `ServiceRefusal` 503, the cause logged.
    func write(_ session: ParticipantSession) throws {
        do {
            try folder.write(session)
        } catch {
            Self.logger.error("study \(name): participant #\(session.number)'s session cannot be saved: \(error)")
            throw Self.unavailable
        }
    }

    /// What a participant is told when the study's folder cannot be written: no path, no cause.
    static let unavailable = ServiceRefusal(
        status: .serviceUnavailable, code: "notSaved",
        message: "the study's server cannot save anything at the moment; please try again in a few minutes")

    func writeManifests() throws {
        try state.withLock { state in try folder.writeManifests(Array(state.sessions.values), settings: settings) }
    }

    private func writeManifestsLogging() {
        do { try writeManifests() } catch { Self.logger.error("study \(name): the manifest cannot be saved: \(error)") }
    }
}
