import Foundation
import Glibc
import Mien
import MienCore
import MienTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One seed of `MienDev fleet-faults`: its fleet started, its participants and faults run together, its invariants
/// checked, everything it started stopped by PID.
struct FleetFaultRun {
    let command: FleetFaults
    let seed: UInt64
    private let replicas = 3
    private let fps = 5.0

    struct Result {
        var checks: FleetInvariants
        var faults: [String]
        var complete: Int
        var seconds: Double
    }

    /// The replicas, replaced when one is started again (a fault's task and the run's end read them).
    private final class Replicas: Sendable {
        let servers: Locked<[ServerProcess]>
        /// Replicas a fault has stopped and not yet started again: a second fault on one waits for it.
        let down = Locked(Set<Int>())
        /// One database fault at a time (a restart of a frozen database would wait for it).
        let database = Turn()

        /// Taken by one task at a time, waited for by polling (a fault waits seconds at most).
        final class Turn: Sendable {
            private let taken = Locked(false)
            func acquire() async {
                while !taken.withLock({ was in
                    defer { was = true }
                    return !was
                }) {
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            func release() { taken.withLock { $0 = false } }
        }
        /// Whether the database serves TLS now (the restarts switch it).
        let tls = Locked(false)
        init(_ servers: [ServerProcess]) { self.servers = Locked(servers) }
        subscript(index: Int) -> ServerProcess { servers.withLock { $0[index] } }
        func replace(_ index: Int, with server: ServerProcess) { servers.withLock { $0[index] = server } }
        func stopAll() { for server in servers.withLock({ $0 }) { server.stop() } }
    }

    func run() async throws -> Result {
        let began = ContinuousClock.now
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mien-fleet-faults-\(getpid())-\(seed)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            if ProcessInfo.processInfo.environment["MIEN_KEEP"] == nil { try? FileManager.default.removeItem(at: work) }
        }
        let stimulus = work.appendingPathComponent("stimulus.mp4").path
        try BenchStudy.run(
            CommandLine.arguments[0],
            [
                "make-clip", "--width", "320", "--height", "240", "--frames", "\(Int(command.seconds * 15))", "--fps",
                "15", stimulus,
            ])
        let database = try await PostgresServer.start()
        defer {
            database.resume()
            database.stop()
        }
        let studies = work.appendingPathComponent("studies")
        let folder = studies.appendingPathComponent("fleet")
        try BenchStudy.run(
            command.mien,
            [
                "study", "init", folder.path, "--stimulus", stimulus, "--groups", "A,B", "--rate", "\(fps)",
                "--min-rate", "\(fps)", "--min-share", "0.2", "--consent-burst", "100000", "--consents-per-minute",
                "100000", "--contact", "fleet@example.org",
            ], environment: ["MIEN_STUDIES_URL": database.url()])
        // `prefer`, libpq's default: TLS when the database offers it, so that a restart switching TLS on or off is met
        // as a real deployment meets it.
        let bareURL = "postgres://\(database.user)@127.0.0.1:\(database.port)/postgres?sslmode=prefer"
        let storeURL = database.url().replacingOccurrences(of: "sslmode=disable", with: "sslmode=prefer")
        // As `MienDev fleet`: two replicas on the study folder, the last given only the database's URL.
        let start = { @Sendable (index: Int, port: Int) throws -> ServerProcess in
            let alone = index == replicas - 1
            let scratch = work.appendingPathComponent("replica-\(index)-tmp")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            return try ServerProcess(
                mien: command.mien, maximumSessions: 4, arguments: ["--studies", alone ? bareURL : studies.path],
                log: work.appendingPathComponent("replica-\(index).log"),
                environment: [
                    "TMPDIR": scratch.path, "PGPASSWORD": database.password,
                    "MIEN_STUDIES_URL": alone ? "" : storeURL,
                ], port: port)
        }
        let servers = Replicas(try (0..<replicas).map { try start($0, 0) })
        defer { servers.stopAll() }
        let ports = (0..<replicas).map { servers[$0].port }
        let balancer = try command.balancer.start(backends: ports, folder: work)
        defer { balancer.stop() }
        let address = "127.0.0.1:\(balancer.port)"
        let clip = try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 30)
        let frames = try (0..<30).map { try clip.frame(at: $0).encoded(as: .jpeg(quality: 85)) }
        let directions = FleetDirections()
        let client = FleetParticipant(
            address: address, study: "fleet", stimulus: "stimulus", frames: frames, seconds: command.seconds, fps: fps,
            directions: directions)
        let plan = command.schedule(seed: seed, replicas: replicas)
        print("seed \(seed): " + plan.map { "\($0.fault) at \($0.at.rounded(toPlaces: 1)) s" }.joined(separator: "; "))

        let streaming = Locked(Set<String>())
        let firstFrames = Locked<ContinuousClock.Instant?>(nil)
        let erased = Locked(Set<String>())
        var generator = SeededGenerator(seed: seed &+ 1)
        let starts = (0..<command.participants).map { _ in Double.random(in: 0...4, using: &generator) }
        let outcomes = await withTaskGroup(of: FleetParticipant.Outcome?.self) { group in
            for index in 0..<command.participants {
                let id = "s\(seed)p\(index + 1)"
                group.addTask {
                    try? await Task.sleep(for: .seconds(starts[index]))
                    return await client.run(id) { on in
                        if on { firstFrames.withLock { $0 = $0 ?? .now } }
                        streaming.withLock { now in
                            if on { now.insert(id) } else { now.remove(id) }
                        }
                    } comesBack: {
                        true
                    }
                }
            }
            group.addTask {
                let clock = ContinuousClock()
                let waited = clock.now
                while firstFrames.withLock({ $0 }) == nil, clock.now - waited < .seconds(60) {
                    try? await Task.sleep(for: .milliseconds(50))
                }
                let zero = firstFrames.withLock { $0 } ?? clock.now
                await withTaskGroup(of: Void.self) { faults in
                    for (at, fault) in plan {
                        faults.addTask {
                            try? await Task.sleep(until: zero + .milliseconds(Int(at * 1000)))
                            await inject(
                                fault, servers: servers, start: start, ports: ports, database: database,
                                address: address, streaming: streaming, erased: erased,
                                directions: directions, logs: work)
                        }
                    }
                }
                return nil
            }
            var all: [FleetParticipant.Outcome] = []
            for await outcome in group { if let outcome { all.append(outcome) } }
            return all
        }
        // Every replica's upkeep (5 s) removes what it holds of an erased participant; leases run out.
        try await Task.sleep(for: .seconds(8))
        let checks = try FleetInvariants(
            outcomes: outcomes, erased: erased.withLock { $0 }, database: FleetDatabase(server: database),
            fieldwork: (minimumShare: 0.2, faceShare: 0.5), password: database.password,
            logs: (0..<replicas).map { work.appendingPathComponent("replica-\($0).log") })
        checks.print()
        for outcome in outcomes where outcome.end != .complete {
            print("  \(outcome.participant): \(outcome.end.rawValue) \(outcome.detail)")
        }
        for outcome in outcomes where outcome.silent > 0 {
            print("  silent socket: \(outcome.participant), \(outcome.silent) time(s), then \(outcome.end.rawValue)")
        }
        return Result(
            checks: checks, faults: plan.map { "\($0.fault) at \($0.at.rounded(toPlaces: 1)) s" },
            complete: outcomes.filter { $0.code != nil }.count,
            seconds: (ContinuousClock.now - began).milliseconds / 1000)
    }

    /// Injects one fault; a stopped replica is started again on its port 3 s after it exited.
    private func inject(
        _ fault: FleetFaults.Fault, servers: Replicas,
        start: @escaping @Sendable (Int, Int) throws -> ServerProcess, ports: [Int], database: PostgresServer,
        address: String, streaming: Locked<Set<String>>, erased: Locked<Set<String>>,
        directions: FleetDirections, logs: URL
    ) async {
        // Someone watching now, not erased: the last in order (an erasure takes the first).
        let watching = {
            let gone = erased.withLock { $0 }
            return streaming.withLock { $0.sorted().last { !gone.contains($0) } }
        }
        switch fault {
        case .kill(let index), .stop(let index):
            while !servers.down.withLock({ $0.insert(index).inserted }) {
                try? await Task.sleep(for: .milliseconds(200))
            }
            defer { servers.down.withLock { _ = $0.remove(index) } }
            let server = servers[index]
            if case .kill = fault { kill(server.pid, SIGKILL) }
            // SIGTERM, and the wait for its exit either way (a drain may take its time).
            await BlockingWork.run { server.stop() }
            // Started again as a supervisor would (Kubernetes, systemd): 3 s after it exited, and again every 3 s
            // while it cannot start (a server refuses to start while the database does not answer).
            for tries in 1...20 {
                try? await Task.sleep(for: .seconds(3))
                do {
                    servers.replace(index, with: try start(index, ports[index]))
                    break
                } catch {
                    if tries == 20 { print("fleet-faults: replica \(index) did not start again: \(error)") }
                }
            }
        case .outage(let seconds):
            await servers.database.acquire()
            defer { servers.database.release() }
            database.pause()
            try? await Task.sleep(for: .seconds(seconds))
            database.resume()
        case .down(let seconds):
            await servers.database.acquire()
            defer { servers.database.release() }
            do {
                try await BlockingWork.run { try database.shutDown() }
                try? await Task.sleep(for: .seconds(seconds))
                let tls = servers.tls.withLock { $0 }
                try await BlockingWork.run { try database.startAgain(tls: tls) }
                print("fleet-faults: the database was down \(Int(seconds)) s")
            } catch {
                print("fleet-faults: the database did not go down and come back: \(error)")
            }
        case .restartSwitchingTLS:
            await servers.database.acquire()
            defer { servers.database.release() }
            let tls = servers.tls.withLock { on in
                on.toggle()
                return on
            }
            do {
                try await BlockingWork.run { try database.restart(tls: tls) }
                print("fleet-faults: the database restarted with TLS \(tls ? "on" : "off")")
            } catch {
                print("fleet-faults: the database did not restart: \(error)")
            }
        case .secondTab:
            guard let id = watching() else {
                print("fleet-faults: nobody was watching to open a second tab")
                return
            }
            directions.give(.secondTab, to: id)
            print("fleet-faults: a second tab for \(id)")
        case .returnElsewhere:
            guard let id = watching() else {
                print("fleet-faults: nobody was watching to come back elsewhere")
                return
            }
            // The replica holding the socket, by the server ID the database names and its log gives.
            let holder = try? FleetDatabase(server: database).value(
                "SELECT socket_server FROM mien_sessions WHERE participant = '\(id)'")
            let holding = (0..<replicas).first { index in
                guard let holder, !holder.isEmpty,
                    let log = try? String(
                        contentsOf: logs.appendingPathComponent("replica-\(index).log"), encoding: .utf8)
                else { return false }
                return log.components(separatedBy: " as server ").last?.hasPrefix(holder) ?? false
            }
            let down = servers.down.withLock { $0 }
            let other = (0..<replicas).first { $0 != holding && !down.contains($0) } ?? 0
            directions.give(.returnThrough("127.0.0.1:\(ports[other])"), to: id)
            print(
                "fleet-faults: \(id) cut, back through replica \(other) (its socket was on \(holding.map { "replica \($0)" } ?? "a replica not known"))"
            )
        case .erase:
            let gone = erased.withLock { $0 }
            guard let id = streaming.withLock({ $0.sorted().first { !gone.contains($0) } }),
                let url = URL(string: "http://\(address)/studies/fleet/participants/\(id)")
            else {
                print("fleet-faults: nobody was watching to be erased")
                return
            }
            var request = URLRequest(url: url)
            request.httpMethod = "DELETE"
            do {
                let (_, response) = try await URLSession.shared.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if status == 204 { erased.withLock { _ = $0.insert(id) } }
                print("fleet-faults: erased \(id): \(status)")
            } catch {
                print("fleet-faults: erasing \(id): \(error)")
            }
        }
    }
}
