import Foundation
import Glibc
import Mien
import MienTesting

/// Debian's HAProxy in front of `mien serve` replicas on loopback, as a panel's load balancer would be.
///
/// Round robin, no session affinity, WebSockets tunnelled, `/readyz` as the health check, a connection refused by a
/// dead replica retried on another; its log (a line per request) beside its configuration. A child process of its
/// own, stopped by its PID.
final class HAProxyProcess: @unchecked Sendable {
    // Set once in `init`, then read-only.
    let process = Process()
    let port: Int
    var pid: Int32 { process.processIdentifier }

    /// - Parameter backends: the replicas' loopback ports.
    /// - Throws: when HAProxy is not installed or does not start listening within 10 s.
    init(backends: [Int], folder: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") else {
            throw MienError(.notFound, "HAProxy is not installed (apt-get install haproxy)", input: "/usr/sbin/haproxy")
        }
        port = try PostgresServer.freePort()
        let configuration = folder.appendingPathComponent("haproxy.cfg")
        let servers = backends.enumerated().map { index, backend in
            "    server r\(index) 127.0.0.1:\(backend) check inter 1s fall 2 rise 1"
        }
        try """
        global
            maxconn 2000
            log stdout format raw local0
        defaults
            mode http
            log global
            option httplog
            timeout connect 2s
            timeout client 60s
            timeout server 60s
            # A stimulus socket lives as long as the stimulus.
            timeout tunnel 1h
            retries 3
            option redispatch 1
            retry-on conn-failure
        frontend participants
            bind 127.0.0.1:\(port)
            default_backend mien
        backend mien
            balance roundrobin
            option httpchk GET /readyz
        \(servers.joined(separator: "\n"))

        """.write(to: configuration, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
        // -db: in the foreground, so its PID is the one to stop; -W not needed without reloads.
        process.arguments = ["-db", "-f", configuration.path]
        // Its log (a line per request: the replica chosen, the status, how it ended) beside the configuration.
        let log = folder.appendingPathComponent("haproxy.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw MienError(.ioFailure, "cannot write HAProxy's log", input: log.path)
        }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.listening(port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw MienError(.internalFailure, "HAProxy did not listen on port \(port)", input: configuration.path)
            }
            usleep(50_000)
        }
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
