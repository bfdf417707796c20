import Foundation
import Mien

/// What must hold after a run of `MienDev fleet-faults`, whatever the faults (issue 77 item 6), read from the
/// database (the record) and from what the participants met.
struct FleetInvariants {
    private(set) var results: [(check: String, passed: Bool, detail: String)] = []
    var failed: [String] { results.filter { !$0.passed }.map(\.check) }

    /// A stored attempt's batches, in order, and whether its end was stored.
    private struct Attempt {
        var lines: [String] = []
        var batches = 0
        var endBatches: Int?
    }

    init(
        outcomes: [FleetParticipant.Outcome], erased: Set<String>, database: FleetDatabase,
        fieldwork: (minimumShare: Double, faceShare: Double), password: String, logs: [URL]
    ) throws {
        let results = try Self.json(
            database,
            """
            SELECT coalesce(json_agg(json_build_object('p', participant, 's', stimulus, 'a', attempt, 'b', batch,
                'l', convert_from(lines, 'UTF8')) ORDER BY participant, stimulus, attempt, batch), '[]')
            FROM mien_results WHERE study = 'fleet'
            """)
        let ends = try Self.json(
            database,
            """
            SELECT coalesce(json_agg(json_build_object('p', participant, 's', stimulus, 'a', attempt,
                'n', batches)), '[]') FROM mien_result_ends WHERE study = 'fleet'
            """)
        let sessions = try Self.json(
            database, "SELECT coalesce(json_agg(session), '[]') FROM mien_sessions WHERE study = 'fleet'")
        var attempts: [String: Attempt] = [:]
        let key = { (row: [String: Any]) in "\(row["p"] ?? "") \(row["s"] ?? "") \(row["a"] ?? "")" }
        for row in results {
            attempts[key(row), default: Attempt()].lines += (row["l"] as? String ?? "").split(separator: "\n").map(
                String.init)
            attempts[key(row), default: Attempt()].batches += 1
        }
        for row in ends { attempts[key(row), default: Attempt()].endBatches = row["n"] as? Int }

        // 1. Every stored attempt is one viewing: its stimulus times strictly increase, no frame twice.
        var mixed: [String] = []
        for (name, attempt) in attempts {
            let times = attempt.lines.compactMap { line -> Double? in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["timestamp"] as? Double
            }
            if times.count != attempt.lines.count || zip(times, times.dropFirst()).contains(where: { $0 >= $1 }) {
                mixed.append(name)
            }
        }
        check(
            "every stored attempt is one viewing (stimulus times strictly increase)", mixed.isEmpty,
            "\(attempts.count) attempts, \(attempts.values.reduce(0) { $0 + $1.lines.count }) frames"
                + (mixed.isEmpty ? "" : "; mixed: \(mixed.prefix(3).joined(separator: ", "))"))

        // 2. Every code given has a complete session with that code and a stored attempt with its end and all its
        //    batches; no complete session lacks a code; no code twice.
        let byID = Dictionary(
            sessions.compactMap { session in (session["participant"] as? String).map { ($0, session) } },
            uniquingKeysWith: { first, _ in first })
        var unbacked: [String] = []
        for outcome in outcomes {
            guard let code = outcome.code else { continue }
            let session = byID[outcome.participant]
            let stored = attempts.contains { name, attempt in
                name.hasPrefix(outcome.participant + " ") && attempt.endBatches == attempt.batches
                    && attempt.batches > 0
            }
            if session?["state"] as? String != "complete" || session?["code"] as? String != code || !stored {
                unbacked.append(outcome.participant)
            }
        }
        let complete = sessions.filter { $0["state"] as? String == "complete" }
        let codes = complete.compactMap { $0["code"] as? String }
        check(
            "every code given has a complete stored attempt; every complete session a code of its own",
            unbacked.isEmpty && codes.count == complete.count && Set(codes).count == codes.count,
            "\(outcomes.filter { $0.code != nil }.count) codes given, \(complete.count) complete sessions"
                + (unbacked.isEmpty ? "" : "; without a stored attempt: \(unbacked.joined(separator: ", "))"))

        // 3. Nobody was asked to watch again after an attempt that was enough.
        var rewatched: [String] = []
        for session in sessions {
            for attempt in session["attempts"] as? [[String: Any]] ?? [] {
                let progress = attempt["progress"] as? [String: Any] ?? [:]
                if progress["ended"] as? Bool == true,
                    (progress["coverage"] as? Double ?? 0) >= fieldwork.minimumShare,
                    (progress["faceCoverage"] as? Double ?? 1) >= fieldwork.faceShare
                {
                    rewatched.append(session["participant"] as? String ?? "?")
                }
            }
        }
        check(
            "nobody watched again after an attempt that was enough", rewatched.isEmpty,
            "\(sessions.reduce(0) { $0 + (($1["attempts"] as? [Any])?.count ?? 0) }) earlier attempts kept"
                + (rewatched.isEmpty ? "" : "; again after enough: \(rewatched.joined(separator: ", "))"))

        // 4. An erased participant leaves nothing and gets no code.
        let left = erased.filter { id in
            byID[id] != nil || attempts.keys.contains { $0.hasPrefix(id + " ") }
                || outcomes.contains { $0.participant == id && $0.code != nil }
        }
        check(
            "an erased participant leaves no row and gets no code", left.isEmpty,
            "\(erased.count) erased mid-stimulus"
                + (left.isEmpty ? "" : "; left: \(left.sorted().joined(separator: ", "))"))

        // 5. No password in any log, no server path in what a participant was told.
        let leaking = logs.filter { log in
            FileManager.default.contents(atPath: log.path).map { String(decoding: $0, as: UTF8.self) }?
                .contains(password) ?? false
        }
        // The run's folders are under the temporary directory: no participant may be told a path there.
        let serverFolder = FileManager.default.temporaryDirectory.path
        let paths = outcomes.filter { $0.detail.contains(serverFolder) }
        check(
            "no password in a log, no server path told to a participant", leaking.isEmpty && paths.isEmpty,
            "\(logs.count) logs, \(outcomes.count) participants"
                + (leaking.isEmpty ? "" : "; password in \(leaking.map(\.lastPathComponent))")
                + (paths.isEmpty ? "" : "; a path told to \(paths.map(\.participant))"))
    }

    private static func json(_ database: FleetDatabase, _ sql: String) throws -> [[String: Any]] {
        let text = try database.value(sql)
        guard let rows = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else {
            throw MienError(.internalFailure, "not a JSON array: \(text.prefix(200))", input: sql)
        }
        return rows
    }

    private mutating func check(_ name: String, _ passed: Bool, _ detail: String) {
        results.append((name, passed, detail))
    }

    func print() {
        Swift.print("| invariant | holds | detail |\n|---|---|---|")
        for result in results {
            Swift.print("| \(result.check) | \(result.passed ? "yes" : "NO") | \(result.detail) |")
        }
    }
}
