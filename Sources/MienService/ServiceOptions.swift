import Foundation
public import Mien
import MienStudies

/// How `mien serve` listens and what it accepts, validated at creation.
///
/// The defaults are safe for one person on their own machine: loopback only, no token needed. Binding any
/// other address requires a token, checked on every request but `GET /healthz`.
public struct ServiceOptions: Sendable, Equatable {
    /// The address to bind (default 127.0.0.1: loopback only).
    public var host: String
    /// The TCP port (default 8080; 0 lets the system choose one, for tests).
    public var port: Int
    /// The bearer token every request but `GET /healthz` must carry; required unless `host` is loopback.
    ///
    /// Given as `Authorization: Bearer …`, or `?token=…` for a browser's WebSocket (which cannot set headers).
    public var token: String?
    /// The largest request body, in bytes (a picture for `/v1/analyze`; default 32 MiB).
    public var maximumBodyBytes: Int
    /// The largest WebSocket message, in bytes (one encoded frame; default 16 MiB).
    public var maximumMessageBytes: Int
    /// The largest picture, in pixels, for uploads and live frames (default: Mien's image limit).
    public var maximumPixels: Int
    /// `/v1/live` sessions open at once (default 4); the next is refused with a close frame.
    ///
    /// Study sockets are governed by `analysisFramesPerSecond` instead: a busy server slows them down before
    /// anyone waits.
    public var maximumSessions: Int
    /// Seconds a live session or an idle HTTP connection may stay silent before it is closed, and a new
    /// connection has to send its first request head (default 60).
    public var idleSeconds: Double
    /// Connections open at once (default: what the file-descriptor limit fits, `ConnectionLimit.fittingFileLimit`);
    /// the next is answered 503 with `Retry-After` and closed.
    public var maximumConnections: Int
    /// Connections open at once from one address, an IPv4 address or an IPv6 /64 (default: an eighth of
    /// `maximumConnections`, 16 at least); a trusted proxy's count only toward `maximumConnections`.
    public var maximumConnectionsPerAddress: Int
    /// Frames per second a live session may send (default 60).
    ///
    /// Faster frames are refused before decoding; an error message says so, at most once a second.
    public var maximumIncomingFrameRate: Double
    /// Messages a live session may leave unread (default 256: over 8 s of results at 30 fps); a client
    /// that falls that far behind is closed (1008) rather than served a stream with holes in it.
    public var maximumOutgoingMessages: Int

    /// The largest job upload, in bytes (a video for `/v1/jobs`; default 2 GiB).
    public var maximumUploadBytes: Int
    /// Jobs waiting or running at once (default 8); the next upload is refused with 503.
    public var maximumJobs: Int
    /// The folder jobs keep their upload and outputs in, one subfolder per job, deleted with the job
    /// (default: `mien-jobs` in the temporary folder).
    public var jobsFolder: String
    /// The folder whose study folders (`mien study init`) are served at `/studies/{name}`; nil: none.
    ///
    /// Participants reach their pages and sockets without the service token (they have only the link) and
    /// write with their own; the dashboards need the service token.
    public var studiesFolder: String?

    /// A PostgreSQL URL (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`) for the studies' sessions; nil: their folders.
    ///
    /// The sessions, tokens and counts live there, shared by every server given the same URL (each serves its own
    /// copy of `studiesFolder`). Set with `mien serve --store` or `MIEN_STUDIES_URL`; its password is never printed.
    public var studiesStore: String?
    /// The reverse proxies whose `X-Forwarded-For` says who the client is (consents are limited per client
    /// address); none by default: the connection's peer is the client, whatever a header says.
    let trustedProxies: [AddressRange]
    /// `trustedProxies` as given (`mien serve --trust-proxy`), each a CIDR range.
    public var trustedProxyRanges: [String] { trustedProxies.map(\.description) }

    /// Whether the studies come from `studiesStore` alone (`mien serve --studies postgres://…`): every study the
    /// database holds is written at start into `studiesFolder`, this server's working folder (a new temporary
    /// one), and served from there.
    public var studiesFromStore: Bool

    /// Frames per second this machine analyses with every metric, shared by the studies' sockets (default:
    /// `framesPerSecondPerCore` times the cores): participants are asked for lower frame rates, down to their
    /// study's floor, before anyone waits in the queue.
    public var analysisFramesPerSecond: Double

    /// What one core analyses, with every metric, of 640x480 JPEG camera frames, frames per second: the most
    /// participants `make bench-study` kept at 10 fps with at least 95 % of their frames analysed, times 10, per
    /// core (14 on 2 cores when this was measured; docs/performance.md), less a tenth for the rest of the server.
    public static let framesPerSecondPerCore = 63.0

    /// A port serving `GET /metrics` alone, without the token, on `host` (nil: none; 0: any free port): for a
    /// Prometheus scrape that cannot authenticate (`MienService.metricsApplication`).
    public var metricsPort: Int?

    /// The program, as a job's analysis snapshots record it: a snapshot another build took is not restored.
    public var generator = "mien serve"
    /// The span over which a study's stimulus socket must deliver a quarter of the frames asked to keep its slot
    /// (`FrameCadence`; 10 s, shorter in tests).
    var frameCadenceWindow = Duration.seconds(10)
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080

    /// - Throws: `.invalidOptions` for a port outside 0...65535, an empty token, a non-loopback `host`
    ///   without a token, a limit that is not positive, or a store without a studies folder; `.invalidArgument` for
    ///   a store that is not a PostgreSQL URL (shown without its password), `.invalidOptions` for a trusted proxy
    ///   that is not an address or a CIDR range.
    public init(
        host: String = ServiceOptions.defaultHost, port: Int = ServiceOptions.defaultPort, token: String? = nil,
        maximumBodyBytes: Int = 32 << 20, maximumMessageBytes: Int = 16 << 20,
        maximumPixels: Int = ImageLimits.maximumPixels, maximumSessions: Int = 4, idleSeconds: Double = 60,
        maximumIncomingFrameRate: Double = 60, maximumOutgoingMessages: Int = 256,
        maximumUploadBytes: Int = 2 << 30, maximumJobs: Int = 8, jobsFolder: String? = nil,
        studiesFolder: String? = nil, studiesStore: String? = nil, analysisFramesPerSecond: Double? = nil,
        trustProxies: [String] = [], metricsPort: Int? = nil, maximumConnections: Int? = nil,
        maximumConnectionsPerAddress: Int? = nil
    ) throws {
        trustedProxies = try trustProxies.map(AddressRange.init)
        // A proxy that can never be a peer of this socket (a server bound to ::1 trusting 127.0.0.1, the docs'
        // example once): its X-Forwarded-For would be ignored in silence, and every participant behind it counted as
        // the proxy's one address. Refused at start, naming both (issue 94).
        if let never = trustedProxies.first(where: { $0.reachable(boundTo: host) == false }) {
            throw MienError(
                .invalidOptions,
                "--trust-proxy \(never) can never be a peer of a server bound to \(host) (\(never.network.count == 4 ? "an IPv4 range, an IPv6 socket" : "an IPv6 range, an IPv4 socket")): its X-Forwarded-For would never be read; trust the address the proxy connects from (with --host ::1, trust ::1)"
            )
        }
        guard (0...65535).contains(port) else {
            throw MienError(.invalidOptions, "the port must be within 0...65535, got \(port)")
        }
        if let metricsPort {
            guard (0...65535).contains(metricsPort), metricsPort == 0 || metricsPort != port else {
                throw MienError(
                    .invalidOptions,
                    "the metrics port must be within 0...65535 and not the service's, got \(metricsPort)")
            }
        }
        self.metricsPort = metricsPort
        if let token, token.isEmpty { throw MienError(.invalidOptions, "the token is empty") }
        guard token != nil || Self.isLoopback(host) else {
            throw MienError(
                .invalidOptions,
                "binding \(host) exposes the service beyond this machine: give a token (--token or MIEN_TOKEN)")
        }
        for (name, value) in [
            ("maximumBodyBytes", Double(maximumBodyBytes)), ("maximumMessageBytes", Double(maximumMessageBytes)),
            ("maximumPixels", Double(maximumPixels)), ("maximumSessions", Double(maximumSessions)),
            ("idleSeconds", idleSeconds), ("maximumIncomingFrameRate", maximumIncomingFrameRate),
            ("maximumOutgoingMessages", Double(maximumOutgoingMessages)),
            ("maximumUploadBytes", Double(maximumUploadBytes)), ("maximumJobs", Double(maximumJobs)),
            ("analysisFramesPerSecond", analysisFramesPerSecond ?? 1),
            ("maximumConnections", Double(maximumConnections ?? 1)),
            ("maximumConnectionsPerAddress", Double(maximumConnectionsPerAddress ?? 1)),
        ] where !(value > 0 && value.isFinite) {
            throw MienError(.invalidOptions, "\(name) must be positive, got \(value)")
        }
        self.host = host
        self.port = port
        self.token = token
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumPixels = maximumPixels
        self.maximumSessions = maximumSessions
        self.idleSeconds = idleSeconds
        let connections = maximumConnections ?? ConnectionLimit.fittingFileLimit()
        self.maximumConnections = connections
        self.maximumConnectionsPerAddress = min(connections, maximumConnectionsPerAddress ?? max(16, connections / 8))
        self.maximumIncomingFrameRate = maximumIncomingFrameRate
        self.maximumOutgoingMessages = maximumOutgoingMessages
        self.maximumUploadBytes = maximumUploadBytes
        self.maximumJobs = maximumJobs
        self.jobsFolder =
            jobsFolder ?? FileManager.default.temporaryDirectory.appendingPathComponent("mien-jobs").path
        var studiesFolder = studiesFolder
        var studiesStore = studiesStore
        studiesFromStore = false
        if let url = studiesFolder, DatabaseURL.isDatabase(url) {
            if let studiesStore, studiesStore != url {
                throw MienError(
                    .invalidOptions,
                    "--studies names a database and --store (or MIEN_STUDIES_URL) another: give the database once")
            }
            studiesStore = url
            studiesFolder =
                FileManager.default.temporaryDirectory.appendingPathComponent("mien-studies-\(UUID().uuidString)").path
            studiesFromStore = true
        }
        if let studiesStore {
            _ = try DatabaseURL(studiesStore)
            // A store and no folder (`--store-file F`, or MIEN_STUDIES_URL set, and no --studies): every study the
            // database holds, as `--studies URL` serves them, with no URL on the command line (issue 96).
            if studiesFolder == nil {
                studiesFolder =
                    FileManager.default.temporaryDirectory.appendingPathComponent("mien-studies-\(UUID().uuidString)")
                    .path
                studiesFromStore = true
            }
        }
        self.studiesFolder = studiesFolder
        self.studiesStore = studiesStore
        self.analysisFramesPerSecond =
            analysisFramesPerSecond ?? Self.framesPerSecondPerCore
            * Double(ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Whether `host` names this machine only: `localhost`, `::1` or an address in 127.0.0.0/8.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0, radix: 10) != nil }
    }
}
