import Foundation
import Glibc
import Mien
import MienTesting

/// A load balancer in front of the replicas: HAProxy or nginx, each running its documented example.
protocol Balancer: Sendable {
    var port: Int { get }
    func stop()
}

extension HAProxyProcess: Balancer {}

/// Debian's nginx in front of `mien serve` replicas on loopback, running the documented example.
///
/// `deploy/balancer/nginx.conf` as it is, its `${MIEN_...}` addresses put in as envsubst would (one server line per
/// replica with the example's options). Its logs beside the configuration. A child process of its own (the
/// master, in the foreground), stopped by its PID.
final class NginxProcess: Balancer, @unchecked Sendable {
    // Set once in `init`, then read-only.
    let process = Process()
    let port: Int

    /// The documented example the tests run.
    static var example: URL { SampleMedia.repositoryRoot.appendingPathComponent("deploy/balancer/nginx.conf") }
    static let binary = "/usr/sbin/nginx"

    /// - Parameter backends: the replicas' loopback ports.
    /// - Throws: when nginx is not installed, the example cannot be read, or nginx does not start listening
    ///   within 10 s.
    init(backends: [Int], folder: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw MienError(.notFound, "nginx is not installed (apt-get install nginx-light)", input: Self.binary)
        }
        port = try PostgresServer.freePort()
        let prefix = folder.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let configuration = prefix.appendingPathComponent("nginx.conf")
        var values = ["MIEN_LISTEN": "127.0.0.1:\(port)"]
        for (index, backend) in backends.enumerated() { values["MIEN_REPLICA_\(index + 1)"] = "127.0.0.1:\(backend)" }
        try Self.configuration(replicas: backends.count, values: values).write(
            to: configuration, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        // In the foreground, so the master's PID is the one to stop (its workers follow it).
        process.arguments = ["-p", prefix.path + "/", "-c", configuration.path, "-g", "daemon off;"]
        try HAProxyProcess.launch(
            process, output: prefix.appendingPathComponent("nginx.out"), port: port, name: "nginx",
            configuration: configuration, stop: stop)
    }

    /// The example with one server line per replica, each with the options of its first, and `${NAME}` replaced
    /// from `values`.
    /// - Throws: when the example cannot be read, has no server line, or names a value not given.
    static func configuration(replicas: Int, values: [String: String]) throws -> String {
        let text: String
        do {
            text = try String(contentsOf: example, encoding: .utf8)
        } catch {
            throw MienError(.notFound, "the nginx example cannot be read", input: example.path)
        }
        var lines = text.components(separatedBy: "\n")
        let isServer = { (line: String) in
            let words = line.trimmingCharacters(in: .whitespaces)
            return words.hasPrefix("server ${MIEN_REPLICA_")
        }
        guard let first = lines.firstIndex(where: isServer) else {
            throw MienError(.corruptData, "the nginx example has no server line", input: example.path)
        }
        // `server ADDRESS OPTIONS...;`
        let options = lines[first].split(separator: " ", omittingEmptySubsequences: true).dropFirst(2)
        lines.removeAll(where: isServer)
        let servers = (1...max(replicas, 1)).map { index in
            "        server ${MIEN_REPLICA_\(index)} \(options.joined(separator: " "))"
        }
        lines.insert(contentsOf: servers, at: first)
        var result = lines.joined(separator: "\n")
        for (name, value) in values { result = result.replacingOccurrences(of: "${\(name)}", with: value) }
        if let range = result.range(of: "${MIEN_") {
            let name = result[range.lowerBound...].prefix { $0 != "}" }
            throw MienError(
                .invalidOptions, "the nginx example names \(name)} and no value was given", input: example.path)
        }
        return result
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
