import Foundation
import HTTPTypes
import Logging
import Mien
import Synchronization

/// One study folder served by `mien serve --studies`: its participants, their tokens, and every write into
/// the folder, each under this study's lock and made whole before it is renamed into place.
///
/// A participant is known by their ID (`CollectionSettings.isName`, checked before any path is made from it)
/// and writes with the token issued at consent, which is bound to that ID and this study; the folder keeps only
/// the token's SHA-256. Only one stimulus socket per participant is open at a time, so two sessions never write
/// the same files.
final class CollectedStudy: Sendable {
    let name: String
    let folder: CollectionFolder
    let settings: CollectionSettings

    static let logger = Logger(label: "mien.studies")

    struct State {
        var sessions: [String: ParticipantSession] = [:]
        /// Token digest to participant ID.
        var tokens: [String: String] = [:]
        /// Participants with a stimulus socket open.
        var streaming: Set<String> = []
        /// Bytes of each participant's webcam upload so far (with `record`).
        var uploads: [String: Int] = [:]
        /// Bumped at every change of the measured data (the dashboard's page is recomputed when it moved).
        var generation = 0
    }
    let state = Mutex(State())

    /// Loads the study and its participants; a participant left `started` by a server that stopped is marked
    /// incomplete (what it measured stays).
    /// - Throws: `MienError` naming the folder or a stimulus whose SHA-256 no longer matches.
    init(folder: URL) throws {
        self.folder = CollectionFolder(folder)
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
        for var session in sessions {
            if session.state == .started {
                session.state = .incomplete
                session.reason = session.reason ?? "the server stopped during the session"
                session.finished = session.finished ?? Self.now()
                try self.folder.write(session)
            }
            restored.sessions[session.participant] = session
            restored.tokens[session.tokenDigest] = session.participant
        }
        state.withLock { $0 = restored }
        try self.folder.writeManifests(sessions, settings: settings)
    }

    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }

    static func digest(_ token: String) -> String { ModelStore.sha256(Data(token.utf8)) }

    // MARK: - Consent and tokens

    /// What consent gives the page: the participant's ID, token, group and order of stimuli.
    struct Admission: Codable, Sendable {
        var participant: String
        var token: String
        var group: String?
        var order: [String]
    }

    /// Admits a participant who agreed: a new session with its token, group and order.
    /// - Parameters:
    ///   - participant: the ID the link carried (nil: one is made).
    ///   - group: the group the link carried (nil: the group with the fewest participants).
    /// - Throws: `ServiceRefusal`: 400 for an ID or group that is not valid, 409 for an ID that already took
    ///   part, 403 when the study is full.
    func admit(participant: String?, group: String?) throws -> Admission {
        let id =
            participant ?? "p-"
            + String(UUID().uuidString.lowercased().prefix(13)).replacingOccurrences(of: "-", with: "")
        guard CollectionSettings.isName(id) else {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidParticipant",
                message: "a participant ID is 1-64 letters, digits, '_' or '-'")
        }
        if let group, !settings.groups.contains(group) {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidGroup",
                message: settings.groups.isEmpty
                    ? "this study has no groups" : "unknown group (known: \(settings.groups.joined(separator: ", ")))")
        }
        let token = Self.token()
        let admission = try state.withLock { state -> (Admission, ParticipantSession) in
            if let existing = state.sessions[id] {
                throw ServiceRefusal(
                    status: .conflict, code: "alreadyTookPart",
                    message: existing.state == .complete
                        ? "participant \(id) has already completed this study"
                        : "participant \(id) has already started this study (\(existing.state.rawValue))")
            }
            if let maximum = settings.maximumParticipants, state.sessions.count >= maximum {
                throw ServiceRefusal(
                    status: .forbidden, code: "studyFull", message: "this study has all the participants it needs")
            }
            let chosen = group ?? balancedGroup(state.sessions.values)
            let number = state.sessions.count
            let names = settings.stimuli.map(\.name)
            let order =
                settings.order == .fixed
                ? names : Array(names[(number % names.count)...] + names[..<(number % names.count)])
            let session = ParticipantSession(
                participant: id, group: chosen, order: order, tokenDigest: Self.digest(token), started: Self.now())
            state.sessions[id] = session
            state.tokens[session.tokenDigest] = id
            return (Admission(participant: id, token: token, group: chosen, order: order), session)
        }
        try persist(admission.1)
        return admission.0
    }

    /// The group with the fewest participants (the first listed on a tie); nil for a study without groups.
    private func balancedGroup(_ sessions: Dictionary<String, ParticipantSession>.Values) -> String? {
        guard !settings.groups.isEmpty else { return nil }
        var counts: [String: Int] = [:]
        for session in sessions { if let group = session.group { counts[group, default: 0] += 1 } }
        return settings.groups.min { counts[$0, default: 0] < counts[$1, default: 0] }
    }

    /// 32 random bytes, hex.
    private static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
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
        state.withLock { Array($0.sessions.values) }.sorted { $0.started < $1.started }
    }

    var generation: Int { state.withLock { $0.generation } }

    /// Deletes every file of a participant and forgets them (the right to erasure).
    /// - Returns: false for an unknown participant.
    /// - Throws: `.ioFailure` when their folder cannot be removed.
    func delete(_ id: String) throws -> Bool {
        let removed = state.withLock { state -> Bool in
            guard let session = state.sessions.removeValue(forKey: id) else { return false }
            state.tokens.removeValue(forKey: session.tokenDigest)
            state.uploads.removeValue(forKey: id)
            state.generation += 1
            return true
        }
        guard removed else { return false }
        do {
            try FileManager.default.removeItem(at: folder.participant(id))
        } catch {
            throw MienError(.ioFailure, "cannot delete the participant's files: \(error)", input: "participant \(id)")
        }
        try writeManifests()
        return true
    }

    // MARK: - Files

    /// Writes a session (and the manifests from every session).
    func persist(_ session: ParticipantSession, manifests: Bool = true) throws {
        try state.withLock { state in
            // Under the lock, and only for a participant still there: a deletion must not bring the folder back.
            guard state.sessions[session.participant] != nil else { return }
            try folder.write(session)
        }
        if manifests { try writeManifests() }
    }

    private func writeManifests() throws {
        try state.withLock { state in try folder.writeManifests(Array(state.sessions.values), settings: settings) }
    }
}
