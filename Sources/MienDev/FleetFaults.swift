import ArgumentParser
import Foundation
import Glibc
import Mien
import MienCore
import MienTesting

/// `MienDev fleet-faults`: the fleet of `MienDev fleet` (PostgreSQL, three replicas, HAProxy) with faults injected
/// at moments drawn from a seed while participants watch through the balancer, then the invariants of issue 77 item
/// 6 checked on what the database holds (`FleetInvariants`).
///
/// The faults: a replica killed (SIGKILL) or stopped (SIGTERM), each started again on its port 3 s after it
/// exited; the database frozen (SIGSTOP to every PostgreSQL process, as a network partition looks to a client) for
/// a drawn number of seconds; a participant erased mid-stimulus; and, drawn from a generator of their own so that
/// a seed's first faults stay what they were: a second tab of a participant who is watching, a page cut and sent
/// back through another server than the one that held its socket, the database restarted (every connection cut)
/// with TLS switched on or off while the servers ask for `sslmode=prefer`. Every page whose socket is cut comes back,
/// as the participant page does by itself. `--down SECONDS` adds the database shut down for that long (connections
/// refused, as a lost database host is; unlike a frozen one, this trips the connection pool's circuit breaker after
/// 60 s).
struct FleetFaults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-faults",
        abstract: "The fleet with seeded faults (kills, stops, database outages, erasures) and its invariants.")

    @Option(help: "The mien binary the replicas run.") var mien = ".build/debug/mien"
    @Option(help: "Seeds, comma-separated: one run each.") var seeds = "1"
    @Option(help: "Participants per run.") var participants = 12
    @Option(help: "Seconds of the stimulus.") var seconds = 6.0
    @Option(help: "Faults per run.") var faults = 3
    @Option(
        help:
            "More faults per run, of the later kinds (a second tab, a page back through another server, the database restarted with TLS switched), drawn apart so that --faults' stay as they were."
    ) var laterFaults = 1
    @Option(help: "The longest database outage drawn, seconds (the shortest is 5).") var longestOutage = 15.0
    @Option(
        help:
            "One more fault, 2 s into the run, the seed's drawn faults unchanged: the database shut down for exactly this many seconds, every connection refused (90: past the connection pool's circuit breaker, which trips after 60 s of failed connections)."
    ) var down: Double?
    @Option(help: "The load balancer, running its example in deploy/balancer/: haproxy or nginx.")
    var balancer: BalancerKind = .haproxy

    enum BalancerKind: String, ExpressibleByArgument, CaseIterable, Sendable {
        case haproxy, nginx

        /// The balancer in front of `backends` (loopback ports), its files in `folder`.
        func start(backends: [Int], folder: URL) throws -> any Balancer {
            switch self {
            case .haproxy: try HAProxyProcess(backends: backends, folder: folder)
            case .nginx: try NginxProcess(backends: backends, folder: folder)
            }
        }
    }

    func validate() throws {
        guard participants >= 2, seconds >= 2, faults >= 1, laterFaults >= 0, longestOutage >= 5,
            (down ?? 5) >= 5, (down ?? 5) <= 300
        else {
            throw ValidationError(
                "at least 2 participants, 2 s of stimulus, 1 fault, 0 later faults and outages of 5 s (--down: 5 to 300 s)"
            )
        }
        guard !seedList.isEmpty else { throw ValidationError("--seeds: integers, comma-separated") }
    }

    private var seedList: [UInt64] { seeds.split(separator: ",").compactMap { UInt64($0) } }

    /// A fault and when it comes, seconds after the first participant's frames start.
    enum Fault: Sendable, CustomStringConvertible {
        case kill(replica: Int)
        case stop(replica: Int)
        case outage(seconds: Double)
        case down(seconds: Double)
        case erase
        case secondTab
        case returnElsewhere
        case restartSwitchingTLS

        var description: String {
            switch self {
            case .secondTab: "a second tab of a participant watching"
            case .returnElsewhere: "a page cut and back through another server"
            case .restartSwitchingTLS: "the database restarted with TLS switched"
            case .kill(let replica): "kill -9 replica \(replica)"
            case .stop(let replica): "SIGTERM replica \(replica)"
            case .outage(let seconds): "database frozen \(Int(seconds)) s"
            case .down(let seconds): "database down \(Int(seconds)) s"
            case .erase: "erase a participant mid-stimulus"
            }
        }
    }

    /// The faults of one seed, in time order.
    func schedule(seed: UInt64, replicas: Int) -> [(at: Double, fault: Fault)] {
        var generator = SeededGenerator(seed: seed)
        var later = SeededGenerator(seed: seed &+ 2)
        let added = (0..<laterFaults).map { _ -> (Double, Fault) in
            let at = Double.random(in: 0.5...(seconds - 1), using: &later)
            let kinds: [Fault] = [.secondTab, .returnElsewhere, .restartSwitchingTLS]
            return (at, kinds[Int.random(in: 0..<kinds.count, using: &later)])
        }
        let long = down.map { [(2.0, Fault.down(seconds: $0))] } ?? []
        return
            ((0..<faults).map { _ -> (Double, Fault) in
                let at = Double.random(in: 0.5...(seconds + 4), using: &generator)
                let fault: Fault =
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: .kill(replica: Int.random(in: 0..<replicas, using: &generator))
                    case 1: .stop(replica: Int.random(in: 0..<replicas, using: &generator))
                    case 2: .outage(seconds: Double(Int.random(in: 5...Int(longestOutage), using: &generator)))
                    default: .erase
                    }
                return (at, fault)
            } + added + long).sorted { $0.0 < $1.0 }
    }

    func run() async throws {
        var passed = 0
        var runs: [[String: Any]] = []
        for seed in seedList {
            let result = try await FleetFaultRun(command: self, seed: seed).run()
            if result.checks.failed.isEmpty { passed += 1 }
            runs.append([
                "seed": seed, "faults": result.faults, "failed": result.checks.failed,
                "complete": result.complete, "seconds": result.seconds.rounded(toPlaces: 1),
            ])
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["fleet_faults": ["runs": runs, "passed": passed, "of": seedList.count]],
            options: [.sortedKeys])
        Swift.print(String(decoding: data, as: UTF8.self))
        if passed < seedList.count { throw ExitCode.failure }
    }
}
