package import Foundation
import MienCore

/// A PostgreSQL server of a test's own, from Debian's `postgresql` package: a cluster made by `initdb` in a
/// temporary folder (a password for its one user, scram-sha-256), started by `pg_ctl` on a free loopback port,
/// stopped by its PID (`stop()`, or when the test's process ends).
///
/// Run as root (CI), the server runs as the `postgres` user the package made (PostgreSQL refuses root).
package final class PostgresServer: Sendable {
    package let folder: URL
    package let port: Int
    /// The postmaster's PID (a new one after `restart(tls:)`).
    package var pid: Int32 { postmaster.withLock { $0 } }
    private let postmaster: Locked<Int32>
    package let user = "mien"
    package let password: String

    /// `postgres://mien:PASSWORD@127.0.0.1:PORT/postgres?sslmode=disable`, or with `password` given instead.
    package func url(password: String? = nil, database: String = "postgres") -> String {
        "postgres://\(user):\(password ?? self.password)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    private init(folder: URL, port: Int, pid: Int32, password: String) {
        self.folder = folder
        self.port = port
        postmaster = Locked(pid)
        self.password = password
    }

    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts a server; initdb and pg_ctl run on a Dispatch thread, not Swift's cooperative pool (2 threads
    /// here), which other tests need meanwhile.
    /// - Throws: `Unavailable` naming what is missing (PostgreSQL's programs: `make test` installs them) or what
    ///   failed, with the server's log.
    /// - Parameter tls: serve TLS too (`ssl=on`), with a certificate for `localhost` and 127.0.0.1 signed by a
    ///   certificate authority of the test's own, `certificateAuthority` (openssl makes both).
    package static func start(tls: Bool = false) async throws -> PostgresServer {
        try await BlockingWork.run { try startWaiting(tls: tls) }
    }

    /// The PEM file of the certificate authority that signed a TLS server's certificate (`start(tls: true)`).
    package var certificateAuthority: URL { folder.appendingPathComponent("tls/ca.pem") }

    /// A certificate authority and a server certificate it signed for `localhost` only (so that 127.0.0.1 under
    /// `verify-full` is a name the certificate lacks), in `folder`.
    private static func makeCertificates(in folder: URL) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try Data("subjectAltName=DNS:localhost\n".utf8).write(to: URL(fileURLWithPath: path("san.ext")))
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            "/usr/bin/openssl",
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-subj", "/CN=mien test CA", "-days", "2",
            ],
            as: nil)
        try run(
            "/usr/bin/openssl",
            ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"],
            as: nil)
        try run(
            "/usr/bin/openssl",
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.crt"), "-days", "2", "-extfile", path("san.ext"),
            ], as: nil)
        chmod(path("server.key"), 0o600)
        return ["-c ssl=on", "-c ssl_cert_file=\(path("server.crt"))", "-c ssl_key_file=\(path("server.key"))"]
    }

    private static func startWaiting(tls: Bool) throws -> PostgresServer {
        guard let bin = binaries() else {
            throw Unavailable(
                description: "PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql-15)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-pg-\(UUID().uuidString)")
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let passwordFile = folder.appendingPathComponent("password")
        try Data(password.utf8).write(to: passwordFile)
        let asRoot = getuid() == 0
        if asRoot { try run("/bin/chown", ["-R", "postgres:postgres", folder.path], as: nil) }
        try run(
            "\(bin)/initdb",
            [
                "-D", data.path, "-U", "mien", "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)", "-E", "UTF8",
                "--no-sync",
            ], as: asRoot ? "postgres" : nil)
        let port = try freePort()
        let pid = try launch(folder: folder, port: port, tls: tls, asRoot: asRoot, bin: bin)
        // Should this process die without stop() (a test killed, a CI timeout), the server follows it (the PID read
        // when it ends: a restart changes it).
        let pidFile = data.appendingPathComponent("postmaster.pid").path
        try spawnWatchdog(
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill -INT $(head -1 '\(pidFile)' 2>/dev/null || echo \(pid)) 2>/dev/null; sleep 3; rm -rf '\(folder.path)'"
        )
        return PostgresServer(folder: folder, port: port, pid: pid, password: password)
    }

    /// Starts the cluster in `folder` on `port` (`pg_ctl start`, waiting until it accepts connections), serving TLS
    /// or not (its certificates made once).
    /// - Returns: the postmaster's PID.
    private static func launch(folder: URL, port: Int, tls: Bool, asRoot: Bool, bin: String) throws -> Int32 {
        let data = folder.appendingPathComponent("data")
        let certificates = folder.appendingPathComponent("tls")
        var settings: [String] = []
        if tls {
            if FileManager.default.fileExists(atPath: certificates.appendingPathComponent("server.crt").path) {
                func path(_ name: String) -> String { certificates.appendingPathComponent(name).path }
                settings = [
                    "-c ssl=on", "-c ssl_cert_file=\(path("server.crt"))", "-c ssl_key_file=\(path("server.key"))",
                ]
            } else {
                settings = try makeCertificates(in: certificates)
                if asRoot { try run("/bin/chown", ["-R", "postgres:postgres", folder.path], as: nil) }
            }
        }
        let log = folder.appendingPathComponent("server.log")
        try run(
            "\(bin)/pg_ctl",
            [
                "-D", data.path, "-l", log.path, "-w", "-t", "30", "-o",
                (["-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off"] + settings).joined(
                    separator: " "),
                "start",
            ], as: asRoot ? "postgres" : nil)
        let pidText = (try? String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)) ?? ""
        guard let pid = pidText.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw Unavailable(description: "PostgreSQL started without a postmaster.pid: \(tail(log))")
        }
        return pid
    }

    /// Restarts the server, serving TLS or not: a database an operator restarts with TLS switched on or off.
    ///
    /// A fast shutdown (every connection cut, as a restart does), then a start on the same port. Blocks (pg_ctl
    /// waits).
    /// - Throws: `Unavailable` with the server's log when it does not start again.
    package func restart(tls: Bool) throws {
        try shutDown()
        try startAgain(tls: tls)
    }

    /// A fast shutdown: every connection cut, and a new one refused until `startAgain`.
    ///
    /// Blocks (pg_ctl waits).
    /// - Throws: `Unavailable` when pg_ctl is missing or fails.
    package func shutDown() throws {
        guard let bin = Self.binaries() else { throw Unavailable(description: "PostgreSQL's pg_ctl is not installed") }
        try Self.run(
            "\(bin)/pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"],
            as: getuid() == 0 ? "postgres" : nil)
    }

    /// Starts a server `shutDown` stopped, on the same port and folder.
    /// - Throws: `Unavailable` with the server's log when it does not start.
    package func startAgain(tls: Bool) throws {
        guard let bin = Self.binaries() else { throw Unavailable(description: "PostgreSQL's pg_ctl is not installed") }
        let pid = try Self.launch(folder: folder, port: port, tls: tls, asRoot: getuid() == 0, bin: bin)
        postmaster.withLock { $0 = pid }
    }

    private static func spawnWatchdog(_ script: String) throws {
        let argv = Self.closingInherited + ["/bin/sh", "-c", script]
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else {
            throw Unavailable(description: "the server's watchdog cannot start: \(String(cString: strerror(spawned)))")
        }
    }

    /// Stops the server by its PID (a fast shutdown: SIGINT); a `BlockingWork` thread waits for it to end (SIGKILL
    /// after 6 s) and removes its folder, so no test waits on it.
    package func stop() {
        kill(pid, SIGINT)
        BlockingWork.start { [pid, folder] in
            for _ in 0..<300 where kill(pid, 0) == 0 { usleep(20_000) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Stops the server hard (SIGKILL), as a database lost to a crash.
    package func kill9() {
        kill(pid, SIGKILL)
        for _ in 0..<300 where kill(pid, 0) == 0 { usleep(20_000) }
    }

    /// Stops every process of the server (SIGSTOP), its connections left open.
    ///
    /// A database that does not answer, as one whose machine hangs or whose network drops every packet.
    /// `resume()` lets it go on.
    package func pause() { signalEveryProcess(SIGSTOP) }

    /// Lets a paused server go on (SIGCONT).
    package func resume() { signalEveryProcess(SIGCONT) }

    /// The postmaster and its children (a backend per connection, the background workers), from `/proc`.
    private func signalEveryProcess(_ signal: Int32) {
        kill(pid, signal)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (name) state ppid …": the name may hold spaces and parentheses, so read after its last one.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == pid { kill(child, signal) }
        }
    }

    /// The folder of Debian's PostgreSQL programs (the newest installed), or nil.
    package static func binaries() -> String? {
        let candidates =
            ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed()
            .map { "/usr/lib/postgresql/\($0)/bin" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: "\($0)/pg_ctl") }
    }

    /// Runs a program to its end, its output in a file.
    ///
    /// Not a pipe: the server pg_ctl starts inherits it and would hold a pipe open for its lifetime. `posix_spawn` and `waitpid`, not Foundation's `Process`, whose
    /// `waitUntilExit` was seen never to return for `runuser … pg_ctl start` (the child left defunct).
    private static func run(_ program: String, _ arguments: [String], as user: String?) throws {
        let argv =
            Self.closingInherited + (user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] } ?? [program])
            + arguments
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mien-pg-\(UUID().uuidString).out"
        ).path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else {
            throw Unavailable(description: "\(argv[0]) cannot be started: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Unavailable(description: "\(argv.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }

    /// Runs the rest of the command line with no descriptor of this process but 0-2.
    ///
    /// A socket a test holds must close when the test closes it, not live on in the server pg_ctl starts (a test of idle connections waited
    /// for an end that never came). `posix_spawn_file_actions_addclosefrom_np` is not imported into Swift.
    private static let closingInherited = [
        "/bin/bash", "-c",
        #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$@""#, "closing",
    ]

    private static func tail(_ log: URL) -> String {
        String(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000))
    }

    /// A loopback port nothing listens on (bound and released; the server takes it a moment later).
    package static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Unavailable(description: "no socket for a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socket, socketAddress, length) == 0 && getsockname(socket, socketAddress, &length) == 0
            }
        }
        guard bound else { throw Unavailable(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
