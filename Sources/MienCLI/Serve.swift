import ArgumentParser
import Foundation
import Glibc
import Mien
import MienCore
import MienService

/// `mien serve`: the HTTP and WebSocket service (`MienService`), until SIGTERM or Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve Mien over HTTP and WebSocket: a live page at /, /v1/analyze, /v1/live, /metrics.",
        discussion: """
            Binds 127.0.0.1 unless --host says otherwise; any other address needs a token (MIEN_TOKEN, \
            --token-file or --token), then required on every request but /healthz. Secrets belong in the \
            environment or a file, not the command line, where any local user can read them. TLS belongs to a reverse proxy (docs/live.md, \
            "Service"). SIGTERM stops accepting, closes live sockets with a close frame and exits.
            """)

    @Option(help: "Address to bind (default: loopback only).") var host = ServiceOptions.defaultHost
    @Option(help: "TCP port (0: any free port, printed on start).") var port = ServiceOptions.defaultPort
    @Option(
        help:
            "Bearer token required on every request but /healthz (default: $MIEN_TOKEN; --token-file keeps it off the command line)."
    )
    var token: String?
    @Option(help: "A file whose first line is the bearer token (a mounted Secret).") var tokenFile: String?
    @Option(help: "/v1/live sessions open at once (study participants are governed by --analysis-rate).")
    var maxSessions = 4
    @Option(
        help:
            "Frames per second this machine analyses, shared by study participants: a busy server slows pages down to each study's floor before anyone waits (default: \(Int(ServiceOptions.framesPerSecondPerCore)) per core, from make bench-study)."
    )
    var analysisRate: Double?
    @Option(help: "Largest request body, in MiB.") var maxBodyMb = 32
    @Option(help: "Seconds a live session or a connection may stay silent before it is closed.") var idleSeconds = 60.0
    @Option(
        help:
            "Connections open at once; the next is answered 503 with Retry-After (default: what the file-descriptor limit fits, half of it less 64; the soft limit is raised to the hard one first)."
    )
    var maxConnections: Int?
    @Option(
        help:
            "Connections open at once from one address (an IPv6 /64 counts as one; a --trust-proxy peer counts only toward --max-connections; default: an eighth of --max-connections, 16 at least)."
    )
    var maxConnectionsPerAddress: Int?
    @Option(help: "Jobs waiting or running at once.") var maxJobs = 8
    @Option(help: "Largest job upload, in MiB.") var maxUploadMb = 2048
    @Option(help: "Folder for job uploads and outputs (default: mien-jobs in the temporary folder).")
    var jobsDir: String?
    @Option(
        help:
            "Serve every study folder (mien study init) under this folder, or every study in this PostgreSQL database (postgres://…: registered with mien study init --store; no folder needed): participants at /studies/NAME, the dashboard at /studies/NAME/dashboard (token)."
    )
    var studies: String?
    @Option(
        help:
            "A PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE) where the --studies studies keep their sessions, shared by every mien serve given it (default: $MIEN_STUDIES_URL; none: the study folders; without --studies, every study it holds). The password is better in MIEN_STUDIES_URL, --store-file, PGPASSWORD or the PGPASSFILE file."
    )
    var store: String?
    @Option(
        help:
            "A file whose first line is the --store URL (a mounted Secret); without --studies, every study that database holds is served."
    )
    var storeFile: String?
    @Option(
        help:
            "Seconds study participants in a stimulus have to finish it after SIGTERM before their pages are told the server restarts (they carry on, on another server of the study or when this one is back); /readyz says not ready meanwhile."
    )
    var drain = 0.0
    @Option(
        help:
            "A reverse proxy (an address or a CIDR range: 127.0.0.1, 10.0.0.0/8) whose X-Forwarded-For names the client, for the per-address consent limit; repeat for several. None by default: the connection's peer is the client, whatever a header says."
    )
    var trustProxy: [String] = []
    @Option(
        help:
            "Also serve GET /metrics alone on this port, without the token (counts and timings, nothing of a participant): for a Prometheus scrape that cannot send the token; bound to --host."
    )
    var metricsPort: Int?

    /// Seconds the service has to shut down after SIGTERM before what is still open is dropped.
    static let shutdownGrace = 5.0

    /// `--studies` names a database, not a folder: it is the store too.
    private var studiesFromURL: Bool {
        studies.map { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") } ?? false
    }

    func options() throws -> ServiceOptions {
        let token = try Secret.token.resolve(token, file: tokenFile)
        let store = try Secret.store.resolve(
            store, file: storeFile, environment: studiesFromURL ? [:] : ProcessInfo.processInfo.environment)
        var options = try ServiceOptions(
            host: host, port: port, token: token, maximumBodyBytes: maxBodyMb << 20, maximumSessions: maxSessions,
            idleSeconds: idleSeconds, maximumUploadBytes: maxUploadMb << 20, maximumJobs: maxJobs, jobsFolder: jobsDir,
            studiesFolder: studies, studiesStore: store, analysisFramesPerSecond: analysisRate,
            trustProxies: trustProxy, metricsPort: metricsPort, maximumConnections: maxConnections,
            maximumConnectionsPerAddress: maxConnectionsPerAddress)
        options.generator = MienVersion.string
        return options
    }

    func validate() throws {
        guard drain >= 0, drain <= 3600 else { throw ValidationError("--drain is 0 to 3600 seconds") }
        do {
            _ = try options()
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    /// Opens and runs the service until a signal ends it; a database-backed working folder is removed after.
    private func serve(options: ServiceOptions, models: ModelStore) async -> Ending {
        let host = options.host
        let service: MienService
        do {
            // Connecting to a studies store is the one part that waits on the network.
            service = try await MienService.open(options: options, models: models)
        } catch {
            return .notStarted(error)
        }
        var failure: (any Error)?
        do {
            try await service.run(
                shutdownGrace: .seconds(Self.shutdownGrace), drain: .seconds(drain),
                onListening: { port in
                    Console.error("mien serve: listening on http://\(host):\(port)/\n")
                    if options.studiesFolder != nil {
                        Console.error(
                            "mien serve: studies share \(Int(options.analysisFramesPerSecond)) analysed frames per second (--analysis-rate)\n"
                        )
                    }
                },
                onMetricsListening: { port in
                    Console.error("mien serve: metrics without the token on http://\(host):\(port)/metrics\n")
                })
        } catch {
            failure = error
        }
        // Served from a database: the working folder held copies and results the database keeps.
        if options.studiesFromStore, let folder = options.studiesFolder {
            do { try await BlockingWork.run { try FileManager.default.removeItem(atPath: folder) } } catch {
                Console.error("mien serve: the studies' working folder \(folder) could not be removed: \(error)\n")
            }
        }
        return .stopped(failure)
    }

    func run() async throws {
        // Before the options: the connection limit's default is read from the raised limit.
        ConnectionLimit.raiseFileLimit()
        // The process is this server's: the memory closed participant sockets held goes back to the system.
        MemoryRelease.shared.enable()
        let options = try options()
        Secret.warnIfPasswordInArguments(store, option: "--store", command: "mien serve")
        Secret.warnIfPasswordInArguments(studies, option: "--studies", command: "mien serve")
        let models = try CommandModels.load()
        // The service shuts down gracefully on SIGTERM / SIGINT (MienService.run); should a connection outlive
        // that, the process still ends on its own deadline after the signal.
        let deadlines = [Int32(SIGTERM), Int32(SIGINT)].map { (signalNumber: Int32) -> any DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                DispatchQueue.global().asyncAfter(deadline: .now() + drain + Self.shutdownGrace + 1) {
                    Console.error("mien serve: connections still open after the shutdown deadline were dropped\n")
                    fflush(nil)
                    _exit(0)  // as MienCommand ends: no static destructors racing the runtimes' threads
                }
            }
            source.resume()
            return source
        }
        // The service runs on Swift's concurrency pool until a signal; the command awaits it.
        let ending = await serve(options: options, models: models)
        for deadline in deadlines { deadline.cancel() }
        switch ending {
        case .notStarted(let error):
            Diagnostics.report(error)
            throw ExitCode.failure
        case .stopped(let error?):
            Console.error("mien serve: \(error)\n")
            throw ExitCode.failure
        case .stopped(nil):
            break
        }
    }

    /// How the service ended: it could not start, or it stopped (after a signal, or failing).
    private enum Ending: Sendable {
        case notStarted(any Error)
        case stopped((any Error)?)
    }
}
