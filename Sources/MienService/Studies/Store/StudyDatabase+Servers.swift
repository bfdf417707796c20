import Foundation
import Logging
import PostgresNIO

/// The servers sharing the database: a probe's ping, who is live, and leaving.
extension StudyDatabase {
    /// A query that needs nothing but an answer, within 2 s (a probe's own timeout is short).
    /// - Throws: `StudyStoreFailure` when the database does not answer.
    func ping() async throws {
        try await transaction(within: .seconds(2)) { [logger] connection in
            try await connection.query("SELECT 1", logger: logger)
        }
    }

    /// The servers with a heartbeat within the lease (this one included once it has beaten).
    func liveServers(_ connection: PostgresConnection) async throws -> Set<String> {
        var servers: Set<String> = []
        let seconds = Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        for try await id in try await connection.query(
            "SELECT id FROM mien_servers WHERE heartbeat > now() - make_interval(secs => \(seconds))", logger: logger
        ).decode(String.self) {
            servers.insert(id)
        }
        return servers
    }

    /// Leaves: this server's row is removed (its sockets, recorded by then, hold nothing), and the pool stops.
    func retire() async {
        do {
            try await transaction { [server, logger] connection in
                try await connection.query("DELETE FROM mien_servers WHERE id = \(server)", logger: logger)
            }
        } catch {
            logger.error("\(url): this server's heartbeat row cannot be removed (it expires by itself): \(error)")
        }
        close()
    }
}
