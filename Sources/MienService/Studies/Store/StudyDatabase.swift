import Foundation
import Logging
import Mien
import MienCore
import MienStudies
import PostgresNIO

/// The PostgreSQL database several `mien serve` share their studies through: a connection pool, and the schema,
/// brought to this Mien's version at start.
///
/// Opening checks one connection first, so a wrong password, a missing database or no server is said at start,
/// naming the URL (without its password), never found out by the first participant. Every transaction has a
/// deadline (`deadline`): a database that stops answering makes a change fail (the participant is told the server
/// cannot save now) instead of hanging a page.
final class StudyDatabase: Sendable {
    let url: DatabaseURL
    let client: PostgresClient
    let logger: Logger
    /// How long a transaction may take before it is given up.
    let deadline: Duration
    /// This server, as socket holders and heartbeats name it.
    let server = UUID().uuidString.lowercased()
    /// A server without a heartbeat for this long is taken for gone: its participants' sockets are released
    /// and they are marked incomplete (`heartbeat()` runs every quarter of it).
    let lease: Duration
    private let running: Task<Void, Never>
    /// Since when the database has answered every heartbeat of this server (nil: the last one failed).
    private let answeredSince = Locked<ContinuousClock.Instant?>(.now)

    /// Whether the database has answered this server's heartbeats for a whole lease: only then is another
    /// server's lapsed heartbeat evidence that it is gone.
    ///
    /// After an outage every server's heartbeat has lapsed, not only a dead one's: the first server to look again
    /// took the others for gone and marked the participants they were serving `serverStopped` while their
    /// stimuli went on (fleet-faults seed 6: two participants who then watched to the end were refused their
    /// code). A lease (fencing by lease) gives every live server time to beat again.
    var steady: Bool { answeredSince.withLock { $0.map { .now - $0 >= lease } ?? false } }

    /// The schema's migrations, in order.
    ///
    /// The database records each one applied (`mien_schema`). Never edit one that shipped: add the next.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE mien_studies (
                name text PRIMARY KEY,
                settings jsonb NOT NULL,
                settings_sha256 text NOT NULL,
                generation bigint NOT NULL DEFAULT 0,
                removed_at bigint NOT NULL DEFAULT 0,
                counts jsonb NOT NULL DEFAULT '{}',
                refused_ids jsonb NOT NULL DEFAULT '{}',
                next_number integer NOT NULL DEFAULT 1,
                created timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE mien_sessions (
                study text NOT NULL REFERENCES mien_studies (name) ON DELETE CASCADE,
                participant text NOT NULL,
                number integer NOT NULL,
                token_digest text NOT NULL,
                state text NOT NULL,
                generation bigint NOT NULL,
                session jsonb NOT NULL,
                socket_server text,
                socket_id uuid,
                socket_replaced_by text,
                PRIMARY KEY (study, participant),
                UNIQUE (study, number),
                UNIQUE (study, token_digest)
            )
            """,
            "CREATE INDEX mien_sessions_generation ON mien_sessions (study, generation)",
            """
            CREATE TABLE mien_servers (
                id text PRIMARY KEY,
                heartbeat timestamptz NOT NULL,
                started timestamptz NOT NULL DEFAULT now()
            )
            """,
        ],
        // 2: per-frame results. A stimulus attempt's JSON Lines in batches (each whole lines, in order), and what
        // its end adds (the episodes still open then, the summary). Erasing a participant's session erases them,
        // and a batch that arrives after the erasure is refused.
        [
            """
            CREATE TABLE mien_results (
                study text NOT NULL,
                participant text NOT NULL,
                stimulus text NOT NULL,
                attempt integer NOT NULL,
                batch integer NOT NULL,
                frames integer NOT NULL,
                lines bytea NOT NULL,
                PRIMARY KEY (study, participant, stimulus, attempt, batch),
                FOREIGN KEY (study, participant) REFERENCES mien_sessions (study, participant) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE mien_result_ends (
                study text NOT NULL,
                participant text NOT NULL,
                stimulus text NOT NULL,
                attempt integer NOT NULL,
                batches integer NOT NULL,
                episodes bytea NOT NULL,
                summary bytea NOT NULL,
                PRIMARY KEY (study, participant, stimulus, attempt),
                FOREIGN KEY (study, participant) REFERENCES mien_sessions (study, participant) ON DELETE CASCADE
            )
            """,
        ],
        // 3: the stimuli, so a server needs nothing but the URL (`mien serve --studies postgres://…`).
        [
            """
            CREATE TABLE mien_stimuli (
                study text NOT NULL REFERENCES mien_studies (name) ON DELETE CASCADE,
                file text NOT NULL,
                sha256 text NOT NULL,
                bytes bytea NOT NULL,
                PRIMARY KEY (study, file)
            )
            """
        ],
        // 4: which upload may write each attempt (fencing). A server claims an attempt's number with a new upload
        // ID before its first batch; a batch or end is kept only while its upload still holds the claim, so an
        // upload still retrying from an earlier viewing (a database outage, a page that came back) is refused
        // instead of mixing its frames into the new one. Erasing the session erases the claims.
        [
            """
            CREATE TABLE mien_result_attempts (
                study text NOT NULL,
                participant text NOT NULL,
                stimulus text NOT NULL,
                attempt integer NOT NULL,
                upload uuid NOT NULL,
                claimed timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (study, participant, stimulus, attempt),
                FOREIGN KEY (study, participant) REFERENCES mien_sessions (study, participant) ON DELETE CASCADE
            )
            """
        ],
        // 5: norms of the team's own (`mien norms add NAME RESULTS --store URL`): each norm one document, the same
        // JSON a norms file holds (`NormSet`), changed in a transaction that holds its row.
        [
            """
            CREATE TABLE mien_norms (
                name text PRIMARY KEY,
                document jsonb NOT NULL,
                updated timestamptz NOT NULL DEFAULT now()
            )
            """
        ],
    ]

    /// The schema version this Mien writes.
    static var schemaVersion: Int { migrations.count }

    private init(url: DatabaseURL, client: PostgresClient, logger: Logger, deadline: Duration, lease: Duration) {
        self.url = url
        self.client = client
        self.logger = logger
        self.deadline = deadline
        self.lease = lease
        running = Task { await client.run() }
    }

    /// Connects, and migrates the schema to this Mien's version (several servers starting at once migrate once).
    /// - Throws: `MienError` naming the URL: `.invalidArgument` for a wrong user or password, a database that does
    ///   not exist, or a schema from a newer Mien; `.deviceUnavailable` for a server that does not answer.
    static func open(
        _ url: DatabaseURL, logger: Logger, deadline: Duration = .seconds(10), lease: Duration = .seconds(20)
    ) async throws -> StudyDatabase {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try connectionConfiguration(url), id: 1, logger: logger)
        } catch {
            throw explain(error, url: url)
        }
        do {
            try await migrate(connection, url: url, logger: logger)
            try await connection.close()
        } catch {
            do { try await connection.close() } catch { logger.debug("closing the check connection: \(error)") }
            throw (error as? MienError) ?? explain(error, url: url)
        }
        var configuration = try clientConfiguration(url)
        configuration.options.connectTimeout = deadline
        configuration.options.maximumConnections = 8
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let database = StudyDatabase(url: url, client: client, logger: logger, deadline: deadline, lease: lease)
        do {
            // The pool's first connection, at start-up: no participant waits on it, and a machine busy starting
            // (or a test run's two threads all taken) may need longer than a participant's deadline.
            try await database.heartbeat(within: max(deadline, .seconds(30)))
        } catch {
            database.close()
            throw explain(error, url: url)
        }
        return database
    }

    /// Says this server is alive (every quarter of `lease`, and at start).
    /// - Parameter within: the deadline, when not the database's own.
    func heartbeat(within: Duration? = nil) async throws {
        do {
            try await beat(within: within)
            answeredSince.withLock { $0 = $0 ?? .now }
        } catch {
            answeredSince.withLock { $0 = nil }
            throw error
        }
    }

    private func beat(within: Duration?) async throws {
        try await transaction(within: within) { [server, logger] connection in
            try await connection.query(
                """
                INSERT INTO mien_servers (id, heartbeat) VALUES (\(server), now())
                ON CONFLICT (id) DO UPDATE SET heartbeat = now()
                """, logger: logger)
            // Servers gone for a day (killed, never retired) are forgotten; their sockets were released long ago.
            try await connection.query(
                "DELETE FROM mien_servers WHERE heartbeat < now() - interval '1 day'", logger: logger)
        }
    }

    /// Stops the pool (its connections close).
    func close() { running.cancel() }

    /// Runs `work` in a transaction, given up after `deadline`.
    @discardableResult
    /// - Throws: what `work` throws; `StudyStoreFailure` when the database fails or does not answer in time.
    /// - Parameter within: the deadline, when not the database's own.
    func transaction<Result: Sendable>(
        within: Duration? = nil, _ work: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let deadline = within ?? deadline
        return try await Deadline.run(deadline, "the database \(url) did not answer in \(deadline)") {
            [client, logger] in
            do {
                return try await client.withTransaction(logger: logger) { connection in try await work(connection) }
            } catch let error as PostgresTransactionError {
                throw Self.unwrap(error)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // No connection to run it on: the pool's own error. After a minute of failed connections the pool's
                // circuit breaker trips (`ConnectionPoolError.connectionCreationCircuitBreakerTripped`) and fails
                // every request at once until a connection is made again, some seconds after the database is back;
                // that error went up raw and was answered 500, which the page took for a refusal (issue 96 item 6).
                throw StudyStoreFailure(
                    description: "no connection to the database: \(Self.describe(error))", underlying: error)
            }
        }
    }

    /// What a failed transaction threw: the closure's error, or the database's.
    private static func unwrap(_ error: PostgresTransactionError) -> any Error {
        if let closure = error.closureError, !(closure is PSQLError) { return closure }
        let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
        return StudyStoreFailure(description: "\(cause.map { describe($0) } ?? "a transaction failed")")
    }

    // MARK: - Schema

    private static func migrate(_ connection: PostgresConnection, url: DatabaseURL, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            // Servers starting together take turns; the lock ends with the transaction.
            try await connection.query("SELECT pg_advisory_xact_lock(7270161)", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS mien_schema (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var version = 0
            for try await (found) in try await connection.query(
                "SELECT coalesce(max(version), 0) FROM mien_schema", logger: logger
            ).decode(Int.self) {
                version = found
            }
            guard version <= schemaVersion else {
                throw MienError(
                    .invalidArgument,
                    "the database's study schema is version \(version), written by a newer Mien; this one knows "
                        + "version \(schemaVersion) (run the newer Mien, or a database of its own)",
                    input: "\(url)")
            }
            for (index, statements) in migrations.enumerated().dropFirst(version) {
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let number = index + 1
                try await connection.query(
                    "INSERT INTO mien_schema (version) VALUES (\(number))", logger: logger)
                logger.info("\(url): study schema migrated to version \(number)")
            }
        }
    }
}
