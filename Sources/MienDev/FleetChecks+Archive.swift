import Foundation
import Mien

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The per-frame results the replicas kept in the database, checked against the files they wrote in the shared
/// folder, and `mien study` on the database against `mien study` on its export.
extension FleetChecks {
    /// - Parameters:
    ///   - mien: the mien binary.
    ///   - store: the database's URL.
    ///   - folder: the study folder the replicas share.
    ///   - work: where the export and the two studies are written.
    ///   - complete: the participants complete on the dashboard.
    ///   - address: the balancer, whose dashboard's curves must be the database's study's.
    func archive(mien: String, store: String, folder: URL, work: URL, complete: [String], address: String)
        async throws -> FleetChecks
    {
        var checks = self
        let export = work.appendingPathComponent("export")
        try BenchStudy.run(mien, ["study", "export", "fleet", export.path], environment: ["MIEN_STUDIES_URL": store])
        // A participant who completed had every attempt's end kept by a live replica: their files and the export's
        // must be the same bytes (the JSON Lines as kept, the CSV and events made from them, the summary as kept).
        var same = 0
        var differing: [String] = []
        // The replica given only the URL keeps no files: its participants' results are in the database alone.
        var databaseOnly = 0
        for id in complete {
            let names = ["jsonl", "csv", "events.csv", "summary.json"].map { "participants/\(id)/stimulus.\($0)" }
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(names[0]).path) else {
                databaseOnly += 1
                continue
            }
            let equal = names.allSatisfy { name in
                let written = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
                return written != nil
                    && written == FileManager.default.contents(atPath: export.appendingPathComponent(name).path)
            }
            if equal { same += 1 } else { differing.append(id) }
        }
        checks.check(
            "the database holds every complete participant's results, byte for byte as the files servers wrote",
            same > 0 && differing.isEmpty,
            "\(same) of \(same + differing.count) with files the same, \(databaseOnly) served by the replica given only the URL (no files)"
                + (differing.isEmpty ? "" : "; differ: \(differing.prefix(3).joined(separator: ", "))"))

        let fromExport = work.appendingPathComponent("study-export")
        let fromDatabase = work.appendingPathComponent("study-database")
        try BenchStudy.run(mien, ["study", export.path, "--output", fromExport.path])
        try BenchStudy.run(
            mien, ["study", "fleet", "--output", fromDatabase.path], environment: ["MIEN_STUDIES_URL": store])
        var differ: [String] = []
        for table in ["curves.csv", "moments.csv", "isc.csv", "participants.csv"] {
            let a = try String(contentsOf: fromExport.appendingPathComponent(table), encoding: .utf8)
            let b = try String(contentsOf: fromDatabase.appendingPathComponent(table), encoding: .utf8)
            // The export's rows name its files; the database's name the same recordings relative to the study.
            if a.replacingOccurrences(of: export.path + "/", with: "") != b { differ.append(table) }
        }
        // A server's dashboard makes the same report through the same pipeline (issue 97): its study.html (the
        // "Made by" line aside), curves.csv and participants.csv are `mien study --store`'s bytes. Its aggregation
        // may be up to 15 s old (DashboardCache.databaseInterval): asked again until it is not.
        let served = ["curves.csv", "participants.csv", "study.html"]
        var waiting = Set(served)
        let clock = ContinuousClock()
        let asked = clock.now
        while !waiting.isEmpty, clock.now - asked < .seconds(25) {
            for table in served where waiting.contains(table) {
                guard let url = URL(string: "http://\(address)/studies/fleet/dashboard/\(table)") else { continue }
                let (data, _) = try await URLSession.shared.data(from: url)
                let written = try String(contentsOf: fromDatabase.appendingPathComponent(table), encoding: .utf8)
                if Self.withoutMaker(String(decoding: data, as: UTF8.self)) == Self.withoutMaker(written) {
                    waiting.remove(table)
                }
            }
            if !waiting.isEmpty { try await Task.sleep(for: .seconds(1)) }
        }
        differ += waiting.sorted().map { "the dashboard's \($0)" }
        let rows = try CSVRecords.read(path: fromDatabase.appendingPathComponent("participants.csv").path).rows
        let included = rows.filter { $0.cells["included"] == "1" }.count
        checks.check(
            "mien study on the database equals mien study on its export, and a dashboard's study.html and tables",
            differ.isEmpty && included > 0,
            differ.isEmpty
                ? "curves, moments, isc and participants the same, and the dashboard's study.html, curves and participants; \(included) of \(rows.count) rows included"
                : "differ: \(differ.joined(separator: ", "))")
        return checks
    }

    /// A page or table without its "Made by" line (the one line that names which program wrote it).
    static func withoutMaker(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("<footer>Made by ") }
            .joined(separator: "\n")
    }

    /// No replica's log shows the database's password (issue 77: secrets out of argv and messages).
    func secrets(password: String, logs: [URL]) -> FleetChecks {
        var checks = self
        let leaking = logs.filter { log in
            (FileManager.default.contents(atPath: log.path)).map { String(decoding: $0, as: UTF8.self) }?
                .contains(password) ?? false
        }
        checks.check(
            "no replica's log shows the database's password", leaking.isEmpty,
            leaking.isEmpty
                ? "\(logs.count) logs read; the URL given in the environment, or without its password (PGPASSWORD)"
                : "in \(leaking.map(\.lastPathComponent).joined(separator: ", "))")
        return checks
    }
}

extension FleetChecks {
    /// What the replicas logged about each participant numbered in `numbers` (a failure's trace, for a run on a
    /// machine whose logs are gone when it ends, as CI's are), 12 lines each at most, the last ones.
    static func traces(of numbers: [Int], logs: [URL]) {
        // "mien: 2026-12-04T07:26:44Z study …": the time is the second word.
        func time(_ line: String) -> String { line.split(separator: " ").dropFirst(2).first.map(String.init) ?? "" }
        for number in numbers {
            let mark = "participant #\(number)"
            let lines = logs.enumerated().flatMap { index, log -> [String] in
                let text = FileManager.default.contents(atPath: log.path).map { String(decoding: $0, as: UTF8.self) }
                return (text ?? "").split(separator: "\n").filter { line in
                    guard let range = line.range(of: mark) else { return false }
                    // "#19" and "#19's", not "#190".
                    return line[range.upperBound...].first.map { !$0.isNumber } ?? true
                }.map { "replica-\(index): \($0)" }
            }.sorted { time($0) < time($1) }
            Swift.print("what the replicas logged of \(mark) (\(lines.count) lines):")
            for line in lines.suffix(12) { Swift.print("  \(line)") }
        }
    }
}
