import Foundation
import Logging
import Mien
import MienCore
import MienStudies
import PostgresNIO

/// A study's shared state in PostgreSQL, for several servers on one study: a row per study (counts, the next
/// number, a generation) and a row per participant (the session, as the folder's `session.json` holds it).
///
/// Every change locks the study's row (`SELECT … FOR UPDATE`), brings this server's view up to the database's
/// generation (only the sessions written since, or all of them after a removal), decides on it, and writes what
/// changed with the next generation, in one transaction: consent uniqueness, group balance, the cap and completion
/// codes are each decided on the ledger as it stands, whichever server decides.
final class PostgresStudyStore: StudyStore {
    let database: StudyDatabase
    let study: String
    let keepsFiles: Bool
    private let view: Locked<StudyLedger>
    /// Participants gone from the view since `takeErased()` last took them.
    private let erased = Locked(Set<String>())

    private init(database: StudyDatabase, study: String, keepsFiles: Bool, ledger: StudyLedger) {
        self.database = database
        self.study = study
        self.keepsFiles = keepsFiles
        view = Locked(ledger)
    }

    var description: String { "\(database.url) (study \(study))" }

    var server: String { database.server }

    func record(sessions: [ParticipantSession], settings: CollectionSettings) -> StoredResults? {
        StoredResults(database: database, study: study, sessions: sessions, settings: settings)
    }

    /// Opens a study in the database, registering it with `settings` and its stimuli (from `folder`, this server's
    /// copy) the first time; a folder that keeps files is marked as not the record (`StudyRecord`).
    ///
    /// Unlike a folder, a session left `started` is not marked incomplete here: another server may be serving it.
    /// - Parameter keepsFiles: write participants' result files in the folder too (false: a working copy).
    /// - Throws: `MienError` `.invalidArgument` when the database holds the study with other settings (this
    ///   server's copy is the wrong one), or the database's failure.
    static func open(
        _ database: StudyDatabase, folder: CollectionFolder, settings: CollectionSettings, keepsFiles: Bool
    ) async throws -> PostgresStudyStore {
        let study = folder.url.lastPathComponent
        let json = String(decoding: try settings.encoded(), as: UTF8.self)
        let digest = ModelStore.sha256(try settings.encoded())
        let stored = try await database.transaction { connection -> String in
            try await connection.query(
                """
                INSERT INTO mien_studies (name, settings, settings_sha256) VALUES (\(study), \(json)::jsonb, \(digest))
                ON CONFLICT (name) DO NOTHING
                """, logger: database.logger)
            for try await digest in try await connection.query(
                "SELECT settings_sha256 FROM mien_studies WHERE name = \(study)", logger: database.logger
            ).decode(String.self) {
                return digest
            }
            return ""
        }
        guard stored == digest else {
            throw MienError(
                .invalidArgument,
                "the database holds a study of this name with other settings (registered by mien study init or "
                    + "another server): serve the same copy of the study folder, or give the study another name",
                input: "study \(study) in \(database.url)")
        }
        let store = PostgresStudyStore(database: database, study: study, keepsFiles: keepsFiles, ledger: StudyLedger())
        try await store.refresh()
        // The stimuli too, once: a server given only the URL serves them from the database.
        try await database.keepStimuli(study: study, settings: settings, folder: folder)
        // The folder says it is not the record (`mien study` on it refuses); a working copy is nobody's to read.
        if keepsFiles {
            let ledger = store.current()
            let removed = await BlockingWork.run { removeLeftovers(in: folder, ledger: ledger) }
            if removed > 0 {
                CollectedStudy.logger.info(
                    "study \(study): \(removed) temporary result files a stopped server left removed (the database holds its frames)"
                )
            }
            do {
                let record = StudyRecord(database: database.url.description, study: study)
                try await BlockingWork.run { try record.write(to: folder) }
            } catch {
                CollectedStudy.logger.error(
                    "study \(study): the folder cannot say the database is the record: \(error)")
            }
        }
        return store
    }

    func current() -> StudyLedger { view.withLock { $0 } }

    /// Brings the view up to the database's generation (a read that must see other servers' changes).
    func refresh() async throws {
        let ledger = try await database.transaction { [self] connection in
            try await synced(connection, locking: false)
        }
        keep(ledger)
    }

    func transact<Result: Sendable>(_ change: @escaping @Sendable (inout StudyLedger) throws -> Result) async throws
        -> Result
    {
        let (result, ledger) = try await database.transaction { [self] connection in
            let base = try await synced(connection, locking: true)
            var draft = base
            let result = try change(&draft)
            guard draft.differs(from: base) else { return (result, base) }
            draft.generation = base.generation + 1
            try await write(draft, over: base, connection)
            return (result, draft)
        }
        keep(ledger)
        return result
    }

    func apply<Result: Sendable>(_ change: @escaping @Sendable (inout StudyLedger) -> Result) async
        -> (result: Result, failure: StudyStoreFailure?)
    {
        do {
            return (try await transact(change), nil)
        } catch {
            // Kept in this server's view only: it takes something away.
            let result = view.withLock { view in
                let result = change(&view)
                view.settle()
                return result
            }
            return (result, error as? StudyStoreFailure ?? StudyStoreFailure(description: "\(error)"))
        }
    }

    func results(participant: String, stimulus: String, attempt: Int) async throws -> ResultUpload? {
        let key = ResultKey(
            study: study, participant: participant, stimulus: stimulus, attempt: attempt,
            number: current().sessions[participant]?.number)
        return ResultUpload(key: key, upload: try await database.claimAttempt(key), database: database)
    }

    func keptResults(participant: String, stimulus: String, attempt: Int) async throws -> Data? {
        let key = ResultKey(
            study: study, participant: participant, stimulus: stimulus, attempt: attempt,
            number: current().sessions[participant]?.number)
        return try await database.results(key).lines
    }

    /// Replaces the view with `ledger` unless the view is already newer (another change of this server).
    private func keep(_ ledger: StudyLedger) {
        // Sessions leave the view only by being touched (a change, or a reload of the whole study).
        let gone = view.withLock { view -> Set<String> in
            guard ledger.generation >= view.generation else { return [] }
            defer {
                view = ledger
                view.settle()
            }
            return ledger.sessions.touched.filter { ledger.sessions[$0] == nil && view.sessions[$0] != nil }
        }
        if !gone.isEmpty { erased.withLock { $0.formUnion(gone) } }
    }

    func takeErased() -> Set<String> {
        erased.withLock { erased in
            defer { erased = [] }
            return erased
        }
    }

    // MARK: - Reading and writing

    /// The ledger at the database's generation, from this server's view and what was written since.
    /// - Parameter locking: lock the study's row until the transaction ends (a change follows).
    private func synced(_ connection: PostgresConnection, locking: Bool) async throws -> StudyLedger {
        let logger = database.logger
        let query: PostgresQuery =
            locking
            ? """
            SELECT generation, removed_at, counts::text, refused_ids::text, next_number FROM mien_studies
            WHERE name = \(study) FOR UPDATE
            """
            : """
            SELECT generation, removed_at, counts::text, refused_ids::text, next_number FROM mien_studies
            WHERE name = \(study)
            """
        var row: (generation: Int, removedAt: Int, counts: String, refused: String, next: Int)?
        for try await found in try await connection.query(query, logger: logger).decode(
            (Int, Int, String, String, Int).self)
        {
            row = found
        }
        guard let row else { throw StudyStoreFailure(description: "the study \(study) is not in the database") }
        var ledger = current()
        // Until the database has answered this server for a lease, every server counts as live (`steady`).
        ledger.liveServers = database.steady ? try await database.liveServers(connection) : nil
        if ledger.generation == row.generation { return ledger }
        let whole = row.removedAt > ledger.generation
        if whole {
            ledger.sessions.removeAll()
            ledger.sockets = [:]
        }
        let since = whole ? -1 : ledger.generation
        let decoder = JSONDecoder()
        for try await (text, server, socket, replacedBy) in try await connection.query(
            """
            SELECT session::text, socket_server, socket_id, socket_replaced_by FROM mien_sessions
            WHERE study = \(study) AND generation > \(since)
            """, logger: logger
        ).decode((String, String?, UUID?, String?).self) {
            let session = try decoder.decode(ParticipantSession.self, from: Data(text.utf8))
            ledger.sessions[session.participant] = session
            ledger.sockets[session.participant] =
                if let server, let socket { SocketHolder(server: server, socket: socket, replacedBy: replacedBy) } else
                {
                    nil
                }
        }
        ledger.counts = try decoder.decode(FieldworkCounts.self, from: Data(row.counts.utf8))
        ledger.refusedIDs = try decoder.decode([String: Int].self, from: Data(row.refused.utf8))
        ledger.nextNumber = row.next
        ledger.generation = row.generation
        return ledger
    }

    private func write(_ new: StudyLedger, over old: StudyLedger, _ connection: PostgresConnection) async throws {
        let logger = database.logger
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let (written, removed) = new.changes(from: old)
        for session in written {
            let json = String(decoding: try encoder.encode(session), as: UTF8.self)
            let holder = new.sockets[session.participant]
            try await connection.query(
                """
                INSERT INTO mien_sessions (study, participant, number, token_digest, state, generation, session,
                    socket_server, socket_id, socket_replaced_by)
                VALUES (\(study), \(session.participant), \(session.number), \(session.tokenDigest),
                        \(session.state.rawValue), \(new.generation), \(json)::jsonb, \(holder?.server),
                        \(holder?.socket), \(holder?.replacedBy))
                ON CONFLICT (study, participant) DO UPDATE SET
                    number = excluded.number, token_digest = excluded.token_digest, state = excluded.state,
                    generation = excluded.generation, session = excluded.session,
                    socket_server = excluded.socket_server, socket_id = excluded.socket_id,
                    socket_replaced_by = excluded.socket_replaced_by
                """, logger: logger)
        }
        if !removed.isEmpty {
            try await connection.query(
                "DELETE FROM mien_sessions WHERE study = \(study) AND participant = ANY(\(removed))", logger: logger)
        }
        let counts = String(decoding: try encoder.encode(new.counts), as: UTF8.self)
        let refused = String(decoding: try encoder.encode(new.refusedIDs), as: UTF8.self)
        try await connection.query(
            """
            UPDATE mien_studies SET generation = \(new.generation), counts = \(counts)::jsonb,
                refused_ids = \(refused)::jsonb, next_number = \(new.nextNumber),
                removed_at = CASE WHEN \(!removed.isEmpty) THEN \(new.generation) ELSE removed_at END
            WHERE name = \(study)
            """, logger: logger)
    }
}
