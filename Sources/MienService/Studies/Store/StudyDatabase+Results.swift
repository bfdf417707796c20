import Foundation
import Logging
import Mien
import PostgresNIO

/// One stimulus attempt of one participant: the unit per-frame results are kept and read back in.
struct ResultKey: Sendable, Hashable, CustomStringConvertible {
    var study: String
    var participant: String
    var stimulus: String
    /// 1 for the first attempt (the folder's `<stimulus>.attempt<n>` numbering).
    var attempt: Int
    /// The participant's number: a server's logs name participants by number only, never by their panel ID.
    var number: Int?

    /// How logs and errors name the attempt: the participant by number when known (a server's keys), else by ID
    /// (`mien study export` and `--store`, the researcher's own commands).
    var description: String {
        "study \(study), participant \(number.map { "#\($0)" } ?? participant), \(stimulus) attempt \(attempt)"
    }
}

/// The database will not keep a write of results, and trying again cannot help (unlike a database that does not
/// answer).
struct ResultsRefused: Error, CustomStringConvertible {
    enum Reason: Sendable, Equatable {
        /// The participant's session is gone: they were erased meanwhile.
        case erased
        /// A later attempt claimed this attempt's number (the page came back, an earlier viewing still retrying):
        /// its frames must not mix with the new viewing's.
        case superseded
        /// The database refused it otherwise (a constraint).
        case refused
    }

    var reason: Reason
    var description: String
}

/// What an attempt's end adds to its JSON Lines.
struct ResultEnd: Sendable {
    /// Batches written before it (the attempt is whole when every one of them is there).
    var batches: Int
    /// The episodes still open at the end, finished then (`[EpisodeEvent]` as JSON).
    var episodes: Data
    /// The attempt's summary, as its `.summary.json` holds it.
    var summary: Data
}

/// Per-frame results in the database: written in batches as frames are measured (`ResultUpload`), read back
/// recording by recording for `mien study export` and `mien study --store` (`StudyArchive`).
extension StudyDatabase {
    /// Claims an attempt's number for a new upload, and sets aside what an attempt of this number left before,
    /// so the new attempt starts with no rows and only its own upload can write under that number.
    ///
    /// Rows left under the number are of an attempt the study folder never set aside (a server killed mid-stimulus
    /// whose checkpoint this server cannot see, its folder not shared, or a viewing whose end the database never
    /// received). They are kept under a negative number (-1, -2, …: `<stimulus>.unrecovered<n>` in an export), never
    /// deleted; an upload of that earlier viewing still retrying is refused from now on (`ResultsRefused.superseded`).
    /// - Returns: the upload's ID, which its every batch and end must carry.
    /// - Throws: `ResultsRefused` `.erased` when the participant's session is gone; `StudyStoreFailure` when the
    ///   database does not answer.
    func claimAttempt(_ key: ResultKey) async throws -> UUID {
        let upload = UUID()
        try await transaction { [logger] connection in
            do {
                // The claim first: it waits for a batch of the earlier upload being written (which holds the claim
                // FOR SHARE) to commit, so that batch is set aside below with the rest of its viewing.
                try await connection.query(
                    """
                    INSERT INTO mien_result_attempts (study, participant, stimulus, attempt, upload)
                    VALUES (\(key.study), \(key.participant), \(key.stimulus), \(key.attempt), \(upload))
                    ON CONFLICT (study, participant, stimulus, attempt) DO UPDATE SET upload = excluded.upload,
                        claimed = now()
                    """, logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
                throw ResultsRefused(reason: .erased, description: "\(key): the participant's session is gone (erased)")
            }
            var lowest = 0
            for try await found in try await connection.query(
                """
                SELECT coalesce(min(attempt), 0) FROM (
                    SELECT attempt FROM mien_results WHERE study = \(key.study) AND participant = \(key.participant)
                        AND stimulus = \(key.stimulus)
                    UNION ALL
                    SELECT attempt FROM mien_result_ends WHERE study = \(key.study)
                        AND participant = \(key.participant) AND stimulus = \(key.stimulus)
                ) AS attempts
                """, logger: logger
            ).decode(Int.self) {
                lowest = found
            }
            let aside = min(lowest, 0) - 1
            for table in ["mien_results", "mien_result_ends"] {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE \(table) SET attempt = $1 WHERE study = $2 AND participant = $3 AND stimulus = $4
                                AND attempt = $5
                            """,
                        binds: try Self.binds(aside, key.study, key.participant, key.stimulus, key.attempt)),
                    logger: logger)
            }
        }
        return upload
    }

    private static func binds(_ aside: Int, _ study: String, _ participant: String, _ stimulus: String, _ attempt: Int)
        throws -> PostgresBindings
    {
        var binds = PostgresBindings()
        binds.append(aside)
        binds.append(study)
        binds.append(participant)
        binds.append(stimulus)
        binds.append(attempt)
        return binds
    }

    /// Keeps batch `number` of an attempt, written by `upload` (again after a timeout that may have kept it: a
    /// second write of the same batch changes nothing).
    /// - Throws: `ResultsRefused` when the database refuses it, the participant was erased, or another upload
    ///   claimed the attempt since (`claimAttempt`); `StudyStoreFailure` when it does not answer.
    func insertBatch(_ key: ResultKey, upload: UUID, number: Int, frames: Int, lines: Data) async throws {
        try await fenced(key, upload: upload) { [logger] connection in
            try await connection.query(
                """
                INSERT INTO mien_results (study, participant, stimulus, attempt, batch, frames, lines)
                VALUES (\(key.study), \(key.participant), \(key.stimulus), \(key.attempt), \(number), \(frames),
                        \(lines))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    /// Keeps an attempt's end, written by `upload`.
    /// - Throws: as `insertBatch`.
    func insertEnd(_ key: ResultKey, upload: UUID, _ end: ResultEnd) async throws {
        try await fenced(key, upload: upload) { [logger] connection in
            try await connection.query(
                """
                INSERT INTO mien_result_ends (study, participant, stimulus, attempt, batches, episodes, summary)
                VALUES (\(key.study), \(key.participant), \(key.stimulus), \(key.attempt), \(end.batches),
                        \(end.episodes), \(end.summary))
                ON CONFLICT (study, participant, stimulus, attempt) DO UPDATE SET
                    batches = excluded.batches, episodes = excluded.episodes, summary = excluded.summary
                """, logger: logger)
        }
    }

    /// Every attempt of `study` with results, ordered by participant, stimulus and attempt.
    func resultKeys(study: String) async throws -> [ResultKey] {
        try await transaction(within: .seconds(60)) { [logger] connection in
            var keys: [ResultKey] = []
            for try await (participant, stimulus, attempt) in try await connection.query(
                """
                SELECT DISTINCT participant, stimulus, attempt FROM mien_results WHERE study = \(study)
                ORDER BY participant, stimulus, attempt
                """, logger: logger
            ).decode((String, String, Int).self) {
                keys.append(ResultKey(study: study, participant: participant, stimulus: stimulus, attempt: attempt))
            }
            return keys
        }
    }

    /// An attempt's JSON Lines, whole, and its end when it ended.
    /// - Throws: `StudyStoreFailure` when the database fails, or a batch is missing in an attempt that ended.
    func results(_ key: ResultKey) async throws -> (lines: Data, end: ResultEnd?) {
        try await transaction(within: .seconds(60)) { [logger] connection in
            var lines = Data()
            var batches = 0
            for try await (number, batch) in try await connection.query(
                """
                SELECT batch, lines FROM mien_results WHERE study = \(key.study) AND participant = \(key.participant)
                    AND stimulus = \(key.stimulus) AND attempt = \(key.attempt) ORDER BY batch
                """, logger: logger
            ).decode((Int, Data).self) {
                guard number == batches else {
                    throw StudyStoreFailure(description: "\(key): batch \(batches) is missing (found \(number))")
                }
                lines.append(batch)
                batches += 1
            }
            var end: ResultEnd?
            for try await (count, episodes, summary) in try await connection.query(
                """
                SELECT batches, episodes, summary FROM mien_result_ends WHERE study = \(key.study)
                    AND participant = \(key.participant) AND stimulus = \(key.stimulus) AND attempt = \(key.attempt)
                """, logger: logger
            ).decode((Int, Data, Data).self) {
                end = ResultEnd(batches: count, episodes: episodes, summary: summary)
            }
            if let end, end.batches != batches {
                throw StudyStoreFailure(description: "\(key): \(end.batches) batches were written, \(batches) found")
            }
            return (lines, end)
        }
    }

    /// A write of `upload`'s, kept only while `upload` holds the attempt's claim (it holds the claim FOR SHARE until
    /// it commits, so a new claim waits for it); a refusal by the database is told apart from the database not
    /// answering.
    private func fenced(
        _ key: ResultKey, upload: UUID, _ work: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        try await transaction { [logger] connection in
            var holder: UUID?
            for try await found in try await connection.query(
                """
                SELECT upload FROM mien_result_attempts WHERE study = \(key.study) AND participant = \(key.participant)
                    AND stimulus = \(key.stimulus) AND attempt = \(key.attempt) FOR SHARE
                """, logger: logger
            ).decode(UUID.self) {
                holder = found
            }
            guard holder == upload else {
                var sessions = 0
                for try await found in try await connection.query(
                    """
                    SELECT count(*)::integer FROM mien_sessions WHERE study = \(key.study)
                        AND participant = \(key.participant)
                    """, logger: logger
                ).decode(Int.self) {
                    sessions = found
                }
                throw sessions == 0
                    ? ResultsRefused(reason: .erased, description: "\(key): the participant's session is gone (erased)")
                    : ResultsRefused(
                        reason: .superseded,
                        description:
                            "\(key): a later viewing took this attempt's number; this one's frames are not mixed in")
            }
            do {
                try await work(connection)
            } catch let error as PSQLError where error.code == .server && !Self.passes(error) {
                throw ResultsRefused(reason: .refused, description: Self.describe(error))
            }
        }
    }

    /// Whether a server's error is one that passes (sent again, as an outage is), not a refusal of the results.
    ///
    /// SQLSTATE classes 08 (connection), 40 (rolled back: serialization, deadlock), 53 (resources) and 57 (operator
    /// intervention). A database restarted mid-write said 57P01 ("terminating connection due to administrator
    /// command"), and a participant's fully measured attempt was called NOT SAVED (fleet-faults seed 3).
    static func passes(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return ["08", "40", "53", "57"].contains(String(state.prefix(2)))
    }
}
