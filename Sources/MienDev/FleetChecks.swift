import Foundation
import Mien

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `MienDev fleet` checks of a burst through several replicas, from what the participants met and what the
/// replicas' dashboards show.
struct FleetChecks {
    /// The dashboard's participant row, as much of it as the checks read.
    struct Row: Decodable, Sendable {
        var number: Int
        var participant: String
        var group: String?
        var state: String
        var reasonCode: String?
        var code: String?
        var analysedShare: Double?
    }

    private(set) var results: [(check: String, passed: Bool, detail: String)] = []
    var failed: [String] { results.filter { !$0.passed }.map(\.check) }

    init(
        outcomes: [FleetParticipant.Outcome], rows: [Row], cut: Set<String>, cap: Int, failover: Double?,
        killed: Bool, otherDashboards: [[Row]]
    ) {
        let count = outcomes.count
        let ids = Set(rows.map(\.participant))
        check(
            "every participant numbered once",
            rows.count == count && ids.count == count && rows.map(\.number).sorted() == Array(1...max(1, count)),
            "\(rows.count) rows, \(ids.count) IDs, numbers \(rows.map(\.number).min() ?? 0)...\(rows.map(\.number).max() ?? 0)"
        )
        let groups = Dictionary(grouping: rows.compactMap(\.group), by: { $0 }).mapValues(\.count)
        let sizes = ["A", "B"].map { groups[$0] ?? 0 }
        check("groups balanced within 1", abs(sizes[0] - sizes[1]) <= 1, "A \(sizes[0]), B \(sizes[1])")
        let watched = outcomes.filter { $0.end == .complete || $0.end == .cut }.count
        let full = outcomes.filter { $0.end == .full }.count
        check(
            "the cap held, and filled",
            watched <= cap && (count <= cap ? watched == count : watched == cap && full == count - cap),
            "\(watched) watched of a cap of \(cap), \(full) told the study is full")
        let failures = outcomes.filter { $0.end == .failed }
        let described = Dictionary(rows.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        check(
            "no participant failed otherwise", failures.isEmpty,
            failures.prefix(3).map { outcome in
                let row = described[outcome.participant]
                return
                    "\(outcome.participant) (#\(row?.number ?? 0), \(row?.state ?? "no row")\(row?.reasonCode.map { " \($0)" } ?? "")): \(outcome.detail)"
            }.joined(separator: "; "))
        if killed {
            check(
                "the killed replica's participants who stayed away incomplete (serverStopped) within 30 s",
                !cut.isEmpty && (failover ?? .infinity) <= 30,
                "\(cut.count) cut; marked after \(failover.map { "\($0.rounded(toPlaces: 1)) s" } ?? "more than 60 s")")
            // One whose socket was cut while it waited for its turn had not begun: the cap may be full on its return.
            let back = outcomes.filter(\.cameBack)
            let completed = back.filter { $0.end == .complete }.count
            check(
                "the killed replica's participants who came back completed through another",
                completed > 0 && back.allSatisfy { $0.end == .complete || $0.end == .full },
                "\(back.count) came back, \(completed) complete, \(back.count - completed) told the study is full")
        }
        let others = outcomes.filter { $0.end == .complete }
        let byID = described
        let codes = Set(others.compactMap(\.code))
        check(
            "every other participant complete, each with a code of their own",
            others.allSatisfy { byID[$0.participant]?.state == "complete" && byID[$0.participant]?.code == $0.code }
                && codes.count == others.count && watched - cut.count == others.count,
            "\(others.count) complete, \(codes.count) codes")
        let sets = otherDashboards.map { Set($0.map(\.participant)) }
        check(
            "every replica's dashboard shows every participant", sets.allSatisfy { $0 == ids },
            sets.map { "\($0.count)" }.joined(separator: ", ") + " of \(ids.count)")
    }

    mutating func check(_ name: String, _ passed: Bool, _ detail: String) {
        results.append((name, passed, detail))
    }

    /// Erases the first complete participant through the balancer, then looks for them in the database, the shared
    /// folder and a dashboard.
    func erasure(address: String, database: FleetDatabase, folder: URL) async throws -> FleetChecks {
        var checks = self
        guard
            let id = try await Fleet.rows(port: 0, address: address).first(where: { $0.state == "complete" })?
                .participant,
            let url = URL(string: "http://\(address)/studies/fleet/participants/\(id)")
        else {
            checks.check("an erasure leaves nothing", false, "no complete participant to erase")
            return checks
        }
        var request = URLRequest(url: url)
        request.httpMethod = "DELETE"
        let (_, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        // Every server removes what it holds of an erased participant at its next upkeep (every 5 s): the shared
        // folder's files may be another server's to remove.
        let clock = ContinuousClock()
        let asked = clock.now
        while clock.now - asked < .seconds(15),
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("participants/\(id)").path)
        {
            try await Task.sleep(for: .milliseconds(250))
        }
        let rows = try ["mien_sessions", "mien_results", "mien_result_ends"].reduce(0) { total, table in
            total
                + (try database.count("SELECT count(*) FROM \(table) WHERE study = 'fleet' AND participant = '\(id)'"))
        }
        let files = FileManager.default.fileExists(atPath: folder.appendingPathComponent("participants/\(id)").path)
        let listed = try await Fleet.rows(port: 0, address: address).contains { $0.participant == id }
        checks.check(
            "an erasure leaves nothing", status == 204 && rows == 0 && !files && !listed,
            "\(id): DELETE \(status), \(rows) database rows, files \(files ? "left" : "gone"), \(listed ? "listed" : "not listed")"
        )
        return checks
    }

    func print() {
        Swift.print("| check | passed | detail |\n|---|---|---|")
        for result in results {
            Swift.print("| \(result.check) | \(result.passed ? "yes" : "NO") | \(result.detail) |")
        }
    }
}
