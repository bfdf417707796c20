import ArgumentParser
import Foundation
import Glibc
import Mien
import MienCore
import MienTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MienDev fleet` (`make fleet-check`, `make bench-fleet`): one study served by several `mien serve` sharing it
/// through PostgreSQL, behind HAProxy, filled by a burst of simulated participants while one replica is killed.
///
/// Everything is started here on loopback and stopped by its PID: a PostgreSQL of its own (initdb in a temporary
/// folder), `mien study init --store`, `--replicas` servers, all but the last on one study folder (as pods share a
/// volume) and the last given only the database's URL, and HAProxy in front (round robin, no affinity). `--participants` consent at once through HAProxy and watch the stimulus;
/// `--max-participants` caps who may start; mid-stimulus the first replica is SIGKILLed. Checked: every participant
/// numbered once, groups within 1, the cap exact, the killed replica's participants incomplete (`serverStopped`)
/// within 30 s and every other complete with its own code, every replica's dashboard showing everyone, the results
/// in the database the bytes of the files the servers wrote, `mien study` on the database equal to `mien study` on
/// its export, and an erasure leaving no row or file. Prints a table of checks, the figures, and a JSON line; exits 1 when a check fails.
struct Fleet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Several mien serve on one study through PostgreSQL and HAProxy, a burst, one replica killed.")

    @Option(help: "The mien binary the replicas run.") var mien = ".build/release/mien"
    @Option(help: "mien serve replicas.") var replicas = 3
    @Option(help: "Participants consenting at once.") var participants = 40
    @Option(help: "The study's --max-participants (who may start watching).") var maxParticipants = 36
    @Option(help: "Seconds of the stimulus.") var seconds = 8.0
    @Option(help: "Frames per second the study asks pages for.") var fps = 5.0
    @Option(help: "Width of the JPEG frames sent (4:3).") var width = 320
    @Option(help: "Each replica's --analysis-rate (default: its own, from the machine).") var analysisRate: Double?
    @Option(help: "The study's --min-share for a completion code (its default).") var minShare = 0.9
    @Flag(help: "Kill no replica.") var noKill = false
    @Option(
        help:
            "Seconds the fleet is left idle before the burst, its database transactions counted (0: not measured; make bench-fleet gives 30)."
    ) var idleWindow = 0.0

    func validate() throws {
        guard replicas >= 2, participants >= 1, maxParticipants >= 1, seconds >= 2, fps > 0, width >= 64 else {
            throw ValidationError("at least 2 replicas, 1 participant, a cap of 1, 2 s of stimulus and 64 pixels")
        }
    }

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mien-fleet-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // MIEN_KEEP=1 keeps the folder: the replicas' logs (replica-N.log), HAProxy's configuration, the study.
        defer {
            if ProcessInfo.processInfo.environment["MIEN_KEEP"] == nil { try? FileManager.default.removeItem(at: work) }
        }
        let stimulus = work.appendingPathComponent("stimulus.mp4").path
        try BenchStudy.run(
            CommandLine.arguments[0],
            [
                "make-clip", "--width", "320", "--height", "240", "--frames", "\(Int(seconds * 15))", "--fps", "15",
                stimulus,
            ])
        let database = try await PostgresServer.start()
        defer { database.stop() }
        let studies = work.appendingPathComponent("studies")
        let folder = studies.appendingPathComponent("fleet")
        try BenchStudy.run(
            mien,
            [
                "study", "init", folder.path, "--stimulus", stimulus, "--groups", "A,B", "--max-participants",
                "\(maxParticipants)", "--rate", "\(fps)", "--min-rate", "\(min(fps, 5))", "--min-share", "\(minShare)",
                // Every simulated participant comes through HAProxy from this machine's address.
                "--consent-burst", "100000", "--consents-per-minute", "100000", "--contact", "fleet@example.org",
            ], environment: ["MIEN_STUDIES_URL": database.url()])
        // As the docs say to: the URL with its password in the environment, never on a command line; the replica
        // given only a URL gets one without the password, which is in PGPASSWORD.
        let bareURL = "postgres://\(database.user)@127.0.0.1:\(database.port)/postgres?sslmode=disable"
        var servers: [ServerProcess] = []
        defer { for server in servers { server.stop() } }
        for index in 0..<replicas {
            // The last replica is given only the database's URL (as a pod without the shared volume): it serves the
            // study from the database, stimuli included, in a working folder of its own.
            let alone = index == replicas - 1
            let scratch = work.appendingPathComponent("replica-\(index)-tmp")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            servers.append(
                try ServerProcess(
                    mien: mien, maximumSessions: 4,
                    arguments: ["--studies", alone ? bareURL : studies.path]
                        + (analysisRate.map { ["--analysis-rate", "\($0)"] } ?? []),
                    log: work.appendingPathComponent("replica-\(index).log"),
                    environment: [
                        "TMPDIR": scratch.path, "PGPASSWORD": database.password,
                        "MIEN_STUDIES_URL": alone ? "" : database.url(),
                    ]))
        }
        let balancer = try HAProxyProcess(backends: servers.map(\.port), folder: work)
        defer { balancer.stop() }
        let clip = try SampleMedia.astronautClip(width: width, height: width * 3 / 4, frameCount: 30)
        let frames = try (0..<30).map { try clip.frame(at: $0).encoded(as: .jpeg(quality: 85)) }
        let sql = FleetDatabase(server: database)
        // The database's load (issue 96 item 16): transactions PostgreSQL counted (its statistics reach the view
        // within about 10 s of an idle connection's last one), and its size.
        let transactions = "SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database"
        var idlePerSecond = -1.0
        if idleWindow > 0 {
            try await Task.sleep(for: .seconds(10))  // the start's own transactions reach the view first
            let before = try sql.count(transactions)
            try await Task.sleep(for: .seconds(idleWindow))
            idlePerSecond = Double(try sql.count(transactions) - before) / idleWindow
        }
        let transactionsBefore = try sql.count(transactions)
        let sizeBefore = try sql.count("SELECT pg_database_size('postgres')")
        let changesBefore = try sql.studyGeneration("fleet")
        print(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; \(replicas) replicas behind HAProxy (port \(balancer.port)); \(participants) participants, cap \(maxParticipants), \(Int(seconds)) s at \(fps) fps of \(width)x\(width * 3 / 4) JPEG"
        )

        // The burst, and the kill once most are watching.
        let client = FleetParticipant(
            address: "127.0.0.1:\(balancer.port)", study: "fleet", stimulus: "stimulus", frames: frames,
            seconds: seconds, fps: fps)
        // Participants streaming now, the most at once, and who was cut so far (every other one comes back).
        let streaming = Locked((now: 0, peak: 0, ever: 0))
        let cuts = Locked(0)
        let stayedAway = Locked(Set<String>())
        let killedAt = Locked<ContinuousClock.Instant?>(nil)
        let markedAfter = Locked<Double?>(nil)
        let burst = ContinuousClock.now
        let met = await withTaskGroup(of: FleetParticipant.Outcome?.self) { group in
            for index in 1...participants {
                let id = "p\(index)"
                group.addTask {
                    await client.run(id) { on in
                        streaming.withLock { count in
                            count.now += on ? 1 : -1
                            count.peak = max(count.peak, count.now)
                            if on { count.ever += 1 }
                        }
                    } comesBack: {
                        let back = cuts.withLock { count in
                            count += 1
                            return count % 2 == 0
                        }
                        if !back { stayedAway.withLock { _ = $0.insert(id) } }
                        return back
                    }
                }
            }
            if !noKill {
                let victim = servers[0].pid
                let victimLog = work.appendingPathComponent("replica-0.log")
                let survivor = servers[1].port
                group.addTask {
                    // Halfway through the first participants' stimulus.
                    while streaming.withLock({ $0.ever }) == 0, ContinuousClock.now - burst < .seconds(60) {
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                    try? await Task.sleep(for: .seconds(seconds * 0.5))
                    // And until a page the victim serves streams (its results stored): a kill while its pages were
                    // still waiting for `ready` cut only pages that come back, and left the failover unmeasured
                    // (3 runs in 14 beside a busy CPU).
                    let waited = ContinuousClock.now
                    while ContinuousClock.now - waited < .seconds(20) {
                        if await Self.streams(on: victimLog, sql) { break }
                        try? await Task.sleep(for: .milliseconds(250))
                    }
                    kill(victim, SIGKILL)
                    let killed = ContinuousClock.now
                    killedAt.withLock { $0 = killed }
                    // Another replica marks the participants who stayed away once the killed one's lease runs out.
                    while ContinuousClock.now - killed < .seconds(60) {
                        // Once a second: the dashboard's participants are an aggregation on the replica.
                        try? await Task.sleep(for: .seconds(1))
                        let away = stayedAway.withLock { $0 }
                        guard !away.isEmpty, ContinuousClock.now - killed > .seconds(1) else { continue }
                        let rows: [FleetChecks.Row]
                        do {
                            rows = try await Self.rows(port: survivor)
                        } catch {
                            // Read again next second; a dashboard that never answers leaves the failover unmeasured.
                            print("fleet: the surviving replica's dashboard: \(error)")
                            continue
                        }
                        let marked = rows.filter {
                            away.contains($0.participant) && $0.state == "incomplete"
                                && $0.reasonCode == "serverStopped"
                        }
                        if marked.count == away.count {
                            markedAfter.withLock { $0 = (ContinuousClock.now - killed).milliseconds / 1000 }
                            return nil
                        }
                    }
                    return nil
                }
            }
            var all: [FleetParticipant.Outcome] = []
            for await outcome in group { if let outcome { all.append(outcome) } }
            return all.sorted { Int($0.participant.dropFirst()) ?? 0 < Int($1.participant.dropFirst()) ?? 0 }
        }
        var outcomes = met
        let survivor = noKill ? servers[0] : servers[1]
        let rows = try await Self.rows(port: survivor.port)
        // The client library was seen to miss a refusal and the close that came with the WebSocket's 101 (HAProxy's
        // log shows the bytes sent and a normal close; the replica's log "turned away: the study is full"): the page
        // comes back from the silent socket and is told it cannot take part, so such a participant is taken as the
        // server recorded them. (A silent socket that was let in comes back and watches: seen in CI as a `ready`
        // never heard, the participant left "started".)
        var unheard = 0
        for index in outcomes.indices where outcomes[index].end == .failed && outcomes[index].silent > 0 {
            let row = rows.first { $0.participant == outcomes[index].participant }
            if row?.state == "screenedOut", row?.reasonCode == "studyFull" {
                outcomes[index].end = .full
                unheard += 1
            }
        }
        let cut = stayedAway.withLock { $0 }
        let peak = streaming.withLock { $0.peak }
        let failover = markedAfter.withLock { $0 }
        for outcome in outcomes where outcome.cameBack && outcome.end != .complete {
            print("came back, then: \(outcome.participant) \(outcome.end.rawValue): \(outcome.detail)")
        }
        let changes = try sql.studyGeneration("fleet") - changesBefore
        try await Task.sleep(for: .seconds(11))  // every connection's statistics in the view
        let burstTransactions = try sql.count(transactions) - transactionsBefore
        let sizeGrowth = try sql.count("SELECT pg_database_size('postgres')") - sizeBefore
        // Per-frame results: a row per batch (1 s of frames at most), before the erasure below removes one.
        let batches = try sql.count("SELECT count(*) FROM mien_results WHERE study = 'fleet'")
        let resultBytes = try sql.count(
            "SELECT coalesce(sum(length(lines)), 0) FROM mien_results WHERE study = 'fleet'")
        let resultFrames = try sql.count("SELECT coalesce(sum(frames), 0) FROM mien_results WHERE study = 'fleet'")
        let checks = try await FleetChecks(
            outcomes: outcomes, rows: rows, cut: cut, cap: maxParticipants, failover: failover, killed: !noKill,
            otherDashboards: try await dashboards(of: Array(servers.dropFirst(noKill ? 0 : 1)))
        ).archive(
            mien: mien, store: database.url(), folder: folder, work: work,
            complete: rows.filter { $0.state == "complete" }.map(\.participant), address: "127.0.0.1:\(balancer.port)"
        ).erasure(address: "127.0.0.1:\(balancer.port)", database: sql, folder: folder)
            .secrets(
                password: database.password,
                logs: (0..<replicas).map { work.appendingPathComponent("replica-\($0).log") })
        checks.print()
        // A silent socket the page came back from is no failure, but is worth reading (make test runs on machines
        // whose logs are gone when they end).
        for outcome in outcomes where outcome.silent > 0 {
            print("silent socket: \(outcome.participant), \(outcome.silent) time(s), then \(outcome.end.rawValue)")
        }
        let failed = outcomes.filter { $0.end == .failed || $0.silent > 0 }.map(\.participant)
        let logs = (0..<replicas).map { work.appendingPathComponent("replica-\($0).log") }
        let unmarked = Self.unmarked(rows: rows, cut: cut, sql: sql, logs: logs)
        FleetChecks.traces(
            of: rows.filter { row in
                failed.contains(row.participant) || unmarked.contains { $0.participant == row.participant }
            }.map(\.number), logs: logs)

        let watched = outcomes.filter { $0.end == .complete || $0.end == .cut }
        let participantSeconds = watched.reduce(0) { $0 + $1.seconds }
        let shares = rows.filter { $0.state == "complete" }.compactMap(\.analysedShare).sorted()
        let kept = shares.filter { $0 >= 0.95 }.count
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let groups = Dictionary(grouping: rows.compactMap(\.group), by: { $0 }).mapValues(\.count)
        let figures: [String: Any] = [
            "replicas": replicas, "participants": participants, "cap": maxParticipants, "watched": watched.count,
            "complete": outcomes.filter { $0.end == .complete }.count, "cut": cut.count,
            "full": outcomes.filter { $0.end == .full }.count, "failed": outcomes.filter { $0.end == .failed }.count,
            "failover_s": failover.map { $0.rounded(toPlaces: 1) } ?? -1, "groups": groups,
            "study_changes": changes, "participant_seconds": participantSeconds.rounded(toPlaces: 1),
            "changes_per_participant_second": (Double(changes) / max(1, participantSeconds)).rounded(toPlaces: 3),
            "lowest_analysed_share": (shares.first ?? 0).rounded(toPlaces: 3),
            "median_analysed_share": (shares.isEmpty ? 0 : shares[shares.count / 2]).rounded(toPlaces: 3),
            "kept_95": kept, "cores": cores, "came_back": outcomes.filter(\.cameBack).count, "at_once": peak,
            // Watching at once, per core (with the lowest share analysed beside it).
            "at_once_per_core": (Double(peak) / Double(cores)).rounded(toPlaces: 1), "fps": fps,
            "seconds": seconds, "checks_failed": checks.failed.count, "refusals_unheard": unheard,
            "result_batches": batches, "result_megabytes": (Double(resultBytes) / 1e6).rounded(toPlaces: 1),
            "result_batches_per_participant_second": (Double(batches) / max(1, participantSeconds)).rounded(
                toPlaces: 2),
            "result_kilobytes_per_participant_second": (Double(resultBytes) / 1e3 / max(1, participantSeconds))
                .rounded(toPlaces: 1),
            "idle_transactions_per_second": idlePerSecond.rounded(toPlaces: 2),
            // A frame's line (one face): what the results cost at any frame rate.
            "result_kilobytes_per_frame": (Double(resultBytes) / 1e3 / Double(max(1, resultFrames))).rounded(
                toPlaces: 2),
            "transactions_per_participant_second": (Double(burstTransactions) / max(1, participantSeconds)).rounded(
                toPlaces: 2),
            "database_megabytes_per_participant_minute": (Double(sizeGrowth) / 1e6 / max(1, participantSeconds / 60))
                .rounded(toPlaces: 2),
        ]
        print(
            "watched \(watched.count) (complete \(figures["complete"] ?? 0) of whom \(figures["came_back"] ?? 0) came back after the kill, cut by the kill and gone \(cut.count)), at once at most \(peak), turned away full \(figures["full"] ?? 0), failed \(figures["failed"] ?? 0); groups \(groups.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        print(
            "failover: \(failover.map { "\($0.rounded(toPlaces: 1)) s" } ?? "-"); study changes \(changes) over \(participantSeconds.rounded(toPlaces: 0)) participant-seconds = \(figures["changes_per_participant_second"] ?? 0) per participant-second (plus a heartbeat per replica every 5 s); per-frame results \(batches) batches, \(figures["result_megabytes"] ?? 0) MB = \(figures["result_batches_per_participant_second"] ?? 0) batches per participant-second"
        )
        print(
            "database: \(burstTransactions) transactions over the burst = \(figures["transactions_per_participant_second"] ?? 0) per participant-second (every replica's, heartbeats and upkeep included); \(figures["result_kilobytes_per_participant_second"] ?? 0) kB of results per participant-second (\(figures["result_kilobytes_per_frame"] ?? 0) kB a frame); grew \(figures["database_megabytes_per_participant_minute"] ?? 0) MB per participant-minute; idle: \(idlePerSecond < 0 ? "not measured" : "\(idlePerSecond.rounded(toPlaces: 2)) transactions/s")"
        )
        print(
            "frames analysed of those received, complete participants: lowest \(((shares.first ?? 0) * 100).rounded(toPlaces: 1)) %, median \(figures["median_analysed_share"] ?? 0); \(kept) kept >= 95 %; at most \(peak) watching at once on \(cores) cores"
        )
        let data = try JSONSerialization.data(withJSONObject: ["bench_fleet": figures], options: [.sortedKeys])
        Swift.print(String(decoding: data, as: UTF8.self))
        if !checks.failed.isEmpty { throw ExitCode.failure }
    }

    private func dashboards(of servers: [ServerProcess]) async throws -> [[FleetChecks.Row]] {
        var all: [[FleetChecks.Row]] = []
        for server in servers { all.append(try await Self.rows(port: server.port)) }
        return all
    }

    /// A replica's dashboard rows (every participant of the study, whichever replica served them).
    static func rows(port: Int, address: String? = nil) async throws -> [FleetChecks.Row] {
        guard let url = URL(string: "http://\(address ?? "127.0.0.1:\(port)")/studies/fleet/dashboard/participants")
        else { return [] }
        let (data, _) = try await URLSession.shared.data(from: url)
        do {
            return try JSONDecoder().decode([FleetChecks.Row].self, from: data)
        } catch {
            throw MienError(
                .internalFailure, "the dashboard's participants: \(String(decoding: data.prefix(300), as: UTF8.self))",
                input: url.absoluteString)
        }
    }
}
