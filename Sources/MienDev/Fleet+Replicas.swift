import Foundation
import MienCore

/// What `MienDev fleet` reads of its replicas beside their dashboards: the server ID each one logs, whether the
/// victim serves a page that streams, and where the database says an unmarked participant's socket is.
extension Fleet {
    /// The server ID the replica logging to `log` gave at its start, once it has.
    static func serverID(in log: URL) -> String? {
        let text = FileManager.default.contents(atPath: log.path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard let range = text.range(of: " as server "), let id = text[range.upperBound...].split(separator: ":").first,
            UUID(uuidString: String(id)) != nil
        else { return nil }
        return String(id)
    }

    /// Whether a page the replica logging to `log` serves streams.
    ///
    /// That is, whether a participant whose socket it holds has results stored (so its page was told `ready`);
    /// false when the replica has not said its server ID yet or psql fails.
    static func streams(on log: URL, _ sql: FleetDatabase) async -> Bool {
        guard let id = serverID(in: log) else { return false }
        let query = """
            SELECT count(*) FROM mien_results r JOIN mien_sessions s USING (study, participant)
            WHERE r.study = 'fleet' AND s.socket_server = '\(id)' AND s.state = 'started'
            """
        do {
            return try await BlockingWork.run { try sql.count(query) } > 0
        } catch {
            print("fleet: the victim's streaming participants: \(error)")
            return false
        }
    }

    /// The participants cut by the kill and not marked `serverStopped`, each printed with where the database says
    /// their socket is (the replicas named by their logs).
    static func unmarked(
        rows: [FleetChecks.Row], cut: Set<String>, sql: FleetDatabase, logs: [URL]
    ) -> [FleetChecks.Row] {
        let unmarked = rows.filter {
            cut.contains($0.participant) && !($0.state == "incomplete" && $0.reasonCode == "serverStopped")
        }
        let replicas = logs.enumerated().compactMap { index, log in serverID(in: log).map { ($0, index) } }
        for row in unmarked {
            do {
                let held = try sql.value(
                    """
                    SELECT concat_ws(' ', state, socket_server, socket_id, 'replaced by', socket_replaced_by)
                    FROM mien_sessions WHERE study = 'fleet' AND participant = '\(row.participant)'
                    """)
                let named = replicas.reduce(held) { $0.replacingOccurrences(of: $1.0, with: "replica-\($1.1)") }
                print("not marked: \(row.participant) #\(row.number): \(named)")
            } catch {
                print("not marked: \(row.participant) #\(row.number): the database: \(error)")
            }
        }
        return unmarked
    }
}
