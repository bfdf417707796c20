import Foundation
import Glibc
import Mien
import MienTesting

/// Debian's HAProxy in front of `mien serve` replicas on loopback, as a panel's load balancer would be.
///
/// Runs the documented example, `deploy/balancer/haproxy.cfg`, as it is: round robin, no session affinity,
/// WebSockets tunnelled, `/readyz` as the health check, a connection refused by a dead replica retried on another.
/// Only its addresses come from here (the environment it reads them from), and one server line per replica with
/// the example's options. Its log (a line per request) beside the configuration. A child process of its own,
/// stopped by its PID.
final class HAProxyProcess: @unchecked Sendable {
    // Set once in `init`, then read-only.
    let process = Process()
    let port: Int
    var pid: Int32 { process.processIdentifier }

    /// The documented example the tests run.
    static var example: URL { SampleMedia.repositoryRoot.appendingPathComponent("deploy/balancer/haproxy.cfg") }

    /// - Parameter backends: the replicas' loopback ports.
    /// - Throws: when HAProxy is not installed, the example cannot be read, or HAProxy does not start listening
    ///   within 10 s.
    init(backends: [Int], folder: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") else {
            throw MienError(.notFound, "HAProxy is not installed (apt-get install haproxy)", input: "/usr/sbin/haproxy")
        }
        port = try PostgresServer.freePort()
        let configuration = folder.appendingPathComponent("haproxy.cfg")
        try Self.configuration(replicas: backends.count).write(to: configuration, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["MIEN_LISTEN"] = "127.0.0.1:\(port)"
        for (index, backend) in backends.enumerated() {
            environment["MIEN_REPLICA_\(index + 1)"] = "127.0.0.1:\(backend)"
        }
        process.environment = environment
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
        // -db: in the foreground, so its PID is the one to stop; -W not needed without reloads.
        process.arguments = ["-db", "-f", configuration.path]
        // Its log (a line per request: the replica chosen, the status, how it ended) beside the configuration.
        try Self.launch(
            process, output: folder.appendingPathComponent("haproxy.log"), port: port, name: "HAProxy",
            configuration: configuration, stop: stop)
    }

    /// Starts `process` with its output in `output` and waits (10 s at most) until it accepts connections on
    /// `port`; one that exits or does not listen in time is stopped and named.
    static func launch(
        _ process: Process, output: URL, port: Int, name: String, configuration: URL, stop: () -> Void
    ) throws {
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw MienError(.ioFailure, "cannot write \(name)'s output", input: output.path)
        }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
        let deadline = ContinuousClock.now + .seconds(10)
        while !listening(port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw MienError(.internalFailure, "\(name) did not listen on port \(port)", input: configuration.path)
            }
            usleep(50_000)
        }
    }

    /// The example with one server line per replica (`"${MIEN_REPLICA_N}"`), each with the options of its first.
    /// - Throws: when the example cannot be read or has no server line.
    static func configuration(replicas: Int) throws -> String {
        let text: String
        do {
            text = try String(contentsOf: example, encoding: .utf8)
        } catch {
            throw MienError(.notFound, "the HAProxy example cannot be read", input: example.path)
        }
        var lines = text.components(separatedBy: "\n")
        let isServer = { (line: String) in line.trimmingCharacters(in: .whitespaces).hasPrefix("server ") }
        guard let first = lines.firstIndex(where: isServer) else {
            throw MienError(.corruptData, "the HAProxy example has no server line", input: example.path)
        }
        // `server NAME ADDRESS OPTIONS...`
        let options = lines[first].split(separator: " ", omittingEmptySubsequences: true).dropFirst(3)
        lines.removeAll(where: isServer)
        let servers = (1...max(replicas, 1)).map { index in
            "    server mien\(index) \"${MIEN_REPLICA_\(index)}\" \(options.joined(separator: " "))"
        }
        lines.insert(contentsOf: servers, at: first)
        return lines.joined(separator: "\n")
    }

    /// Whether something accepts connections on the loopback port.
    static func listening(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
