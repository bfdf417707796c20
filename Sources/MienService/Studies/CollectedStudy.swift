import Foundation
import HTTPTypes
import Logging
import Mien
import MienCore
import MienStudies

/// One study folder served by `mien serve --studies`: its participants, their tokens, and every write into
/// the folder, each under this study's lock and made whole before it is renamed into place.
///
/// A participant is known by their ID (`CollectionSettings.isParticipantID`, checked before any path is made from it)
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
    /// Where the sessions, counts and tokens live (the folder, or a database several servers share).
    let store: any StudyStore
    /// The wall clock (a test's own, to pass re-entry windows and expiries).
    let clock: @Sendable () -> Date

    static let logger = Logger(label: "mien.studies")
    /// Where events that come in floods are logged, one line per kind per minute with a count (`LogTally`).
    static let tally = LogTally()

    /// What only this server holds: the sockets open here (its lock also orders the webcam chunks it receives).
    struct Local {
        /// Participants with a socket open, and how to close it when another page of theirs takes over.
        var open: [String: OpenSocket] = [:]
        /// When consents were last looked through for expired ones (`expireConsents`).
        var expirySwept: Date?
        /// Participants a chunk of whose recording is being written (`appendRecording`).
        var appending: Set<String> = []
        /// Places another server passed to this one for a page of theirs that is on its way here (`takeOverElsewhere`),
        /// by the socket ID the ledger holds them under, until the page opens its socket or goes.
        var reserved: [String: UUID] = [:]
        /// Places the ledger says this server holds with no socket of it open or on its way, at the last upkeep.
        var unbacked: [String: UUID] = [:]
        /// Sockets open here that an upkeep has seen the store hold as theirs (`upkeep`).
        var confirmed: Set<UUID> = []
    }
    let local = Locked(Local())

    /// A participant's open socket: its kind (`framing` or a stimulus's name), its live progress, what closes
    /// it, and when it finished closing (its measurement recorded).
    struct OpenSocket: Sendable {
        let id = UUID()
        var kind: String
        /// Whether it is a stimulus's socket (else the framing check's).
        var inStimulus: Bool
        var opened: Date
        /// What it has measured so far, and the rate the page is asked for (a stimulus socket).
        var progress: (@Sendable () -> (ParticipantSession.StimulusProgress, Double))?
        var close: @Sendable (_ end: SocketEnd) -> Void
        let done = Completion()
    }

    /// Serves the study in `folder` from the folder itself (one server, the embedded default): its store opens it
    /// and recovers what a killed server left (`FolderStudyStore.open`).
    /// - Throws: `MienError` naming the folder or a stimulus whose SHA-256 no longer matches.
    convenience init(folder: URL, clock: @escaping @Sendable () -> Date = Date.init) throws {
        let files = CollectionFolder(folder)
        let settings = try Self.checkedSettings(files)
        self.init(
            folder: files, settings: settings,
            store: try FolderStudyStore.open(files, settings: settings, now: clock()), clock: clock)
    }

    /// Serves a study whose sessions live in a database several servers share; `folder` is this server's copy of
    /// the study (its settings and stimuli, and the result files of the participants it serves): its store opens
    /// it (`PostgresStudyStore.open`: registered the first time, refused when its settings differ).
    /// - Parameter keepsFiles: write participants' result files in the folder too (false: a working copy).
    /// - Throws: `MienError` naming the folder, a stimulus, or the database.
    convenience init(
        folder: URL, database: StudyDatabase, keepsFiles: Bool = true, clock: @escaping @Sendable () -> Date = Date.init
    ) async throws {
        let files = CollectionFolder(folder)
        // Every stimulus is read and hashed: off the cooperative pool.
        let settings = try await BlockingWork.run { try Self.checkedSettings(files) }
        self.init(
            folder: files, settings: settings,
            store: try await PostgresStudyStore.open(
                database, folder: files, settings: settings, keepsFiles: keepsFiles),
            clock: clock)
    }

    /// The one initialiser: the study in `folder`, its shared state in `store` (opened on it by the store's own
    /// `open`, which owns recovery).
    init(
        folder: CollectionFolder, settings: CollectionSettings, store: any StudyStore,
        clock: @escaping @Sendable () -> Date
    ) {
        self.folder = folder
        self.settings = settings
        self.store = store
        self.clock = clock
        name = folder.url.lastPathComponent
    }

    /// The study's settings, each stimulus checked against the SHA-256 `mien study init` recorded.
    private static func checkedSettings(_ folder: CollectionFolder) throws -> CollectionSettings {
        let settings = try CollectionSettings.read(folder: folder.url)
        // The page shows settings.json's consent; consent.md is its copy to read. An edit of the copy alone would
        // do nothing (issue 96): refused, naming the file, until the two agree.
        let copy = folder.url.appendingPathComponent("consent.md")
        if let data = FileManager.default.contents(atPath: copy.path),
            String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                != settings.consent.trimmingCharacters(in: .whitespacesAndNewlines)
        {
            throw MienError(
                .invalidOptions,
                "consent.md differs from settings.json's \"consent\", which is what the page shows: put the same text in both (or delete consent.md), then start again",
                input: copy.path)
        }
        for stimulus in settings.stimuli {
            let path = folder.stimuli.appendingPathComponent(stimulus.file).path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MienError(.notFound, "the stimulus \(stimulus.name) is missing", input: path)
            }
            guard ModelStore.sha256(data) == stimulus.sha256 else {
                throw MienError(
                    .corruptData, "the stimulus \(stimulus.name) changed since mien study init (SHA-256 differs)",
                    input: path)
            }
        }
        return settings
    }

    static func digest(_ token: String) -> String { ModelStore.sha256(Data(token.utf8)) }

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
    func participant(token: String?) async throws -> String {
        guard let token, !token.isEmpty else {
            throw ServiceRefusal(
                status: .unauthorized, code: "unauthorized",
                message: "this needs the participant's session token (given at consent)")
        }
        let digest = Self.digest(token)
        if store.current().participant(token: digest) == nil {
            // Issued by another server since this one last looked.
            do { try await store.refresh() } catch { Self.logger.error("study \(name): \(error)") }
        }
        guard let id = store.current().participant(token: digest) else {
            throw ServiceRefusal(
                status: .unauthorized, code: "unauthorized", message: "the session token is not one of this study's")
        }
        return id
    }

    func session(_ id: String) -> ParticipantSession? { store.current().sessions[id] }

    var sessions: [ParticipantSession] {
        store.current().sessions.values.sorted { $0.number < $1.number }
    }

    var generation: Int { store.current().generation }

    /// Deletes every file of a participant and forgets them (the right to erasure); a socket of theirs still
    /// open is closed once the erasure is saved.
    ///
    /// Only a digest of their ID is kept (`FieldworkCounts.erasedIDs`): the ID cannot take part again.
    /// - Returns: false for an unknown participant.
    /// - Throws: `ServiceRefusal` 503 `notSaved` when the store cannot be written (nothing is deleted);
    ///   `.ioFailure` when their files cannot be removed.
    func delete(_ id: String) async throws -> Bool {
        guard session(id) != nil else { return false }
        let erased = FieldworkCounts.erasedDigest(study: name, participant: id)
        // Decided and written before anything else happens: an erasure the store could not write is not done, and
        // is said so (before, it was kept in this server's view only, the page was told "erased", and asking again
        // answered 404 while the database still held everything; fleet-faults found it).
        let removed: Bool
        do {
            removed = try await store.transact { ledger in
                ledger.sockets.removeValue(forKey: id)
                // Remembered, so the ID cannot consent again and be given a second code.
                ledger.counts.erasedIDs.insert(erased)
                return ledger.sessions.removeValue(forKey: id) != nil
            }
        } catch {
            Self.logger.error("study \(name): an erasure could not be saved in \(store.description): \(error)")
            throw ServiceRefusal(
                status: .serviceUnavailable, code: "notSaved",
                message: "the participant's data could not be deleted now (the study's store cannot be written); "
                    + "nothing was deleted: try again in a few minutes")
        }
        local.withLock { $0.open.removeValue(forKey: id) }?.close(.erased)
        guard removed else { return false }
        try await removeFiles(of: id)
        Self.logger.info("study \(name): a participant's data was deleted (erasure)")
        return true
    }

    /// Removes what this server holds of a participant who is gone (their results and recording; with a folder
    /// store, the store already did).
    /// - Throws: `.ioFailure` naming the participant.
    func removeFiles(of id: String) async throws {
        let files = folder.participant(id)
        try await BlockingWork.run {
            guard FileManager.default.fileExists(atPath: files.path) else { return }
            do {
                try FileManager.default.removeItem(at: files)
            } catch {
                throw MienError(
                    .ioFailure, "cannot delete the participant's files: \(error)", input: "participant \(id)")
            }
        }
    }
}
