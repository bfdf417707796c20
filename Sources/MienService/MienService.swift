public import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
public import Mien
import MienCore
import MienStudies
import NIOCore
import NIOWebSocket
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `mien serve`: Mien over HTTP and WebSocket, for browsers and any language.
///
/// A thin layer: every endpoint maps its input to a `Detector` and its output to Mien's result schema.
/// - `GET /`: the live page; `GET /healthz`; `GET /readyz`; `GET /metrics` (Prometheus); `GET /openapi.yaml`;
///   `GET /detector-result.schema.json`.
/// - `POST /v1/analyze`: one picture → its `DetectorResult` (discrete-image semantics).
/// - `GET /v1/live` (WebSocket): frames in, one result per frame out (see `LiveSession`).
///
/// ```swift
/// let service = try MienService(options: ServiceOptions(port: 8080), models: ModelStore())
/// try await service.run()  // until SIGTERM or SIGINT
/// ```
public struct MienService: Sendable {
    public let options: ServiceOptions
    public let metrics: ServiceMetrics
    let models: ModelStore
    let sessions: SessionLimiter
    let selfCheck = SelfCheckBox()
    let jobs: JobQueue
    let pictures: DetectorPool
    let studies: StudyDesk?

    /// A service whose studies (if any) keep their sessions in their folders.
    /// - Throws: `.ioFailure` naming the jobs folder when it cannot be created; `.invalidOptions` for options
    ///   with a studies store (`open(options:models:metrics:)` connects to it).
    public init(options: ServiceOptions, models: ModelStore, metrics: ServiceMetrics = ServiceMetrics()) throws {
        guard options.studiesStore == nil else {
            throw MienError(.invalidOptions, "a service with a studies store is made by MienService.open")
        }
        let budget = AnalysisBudget(framesPerSecond: options.analysisFramesPerSecond)
        try self.init(
            options: options, models: models, metrics: metrics,
            studies: try options.studiesFolder.map { try StudyDesk(parent: URL(fileURLWithPath: $0), budget: budget) })
    }

    /// A service, connected to its studies' store first when `options` name one (`studiesStore`).
    /// - Throws: as `init`, and `MienError` naming the database (without its password) when it cannot be
    ///   reached, refuses the user, or holds a newer Mien's schema.
    public static func open(options: ServiceOptions, models: ModelStore, metrics: ServiceMetrics = ServiceMetrics())
        async throws -> MienService
    {
        guard let store = options.studiesStore, let folder = options.studiesFolder else {
            return try MienService(options: options, models: models, metrics: metrics)
        }
        let budget = AnalysisBudget(framesPerSecond: options.analysisFramesPerSecond)
        let database = try await StudyDatabase.open(try DatabaseURL(store), logger: CollectedStudy.logger)
        do {
            // Given only the URL: every study in the database, written into this server's working folder.
            let refused =
                options.studiesFromStore ? try await database.writeStudies(into: URL(fileURLWithPath: folder)) : [:]
            let desk = try await StudyDesk(
                parent: URL(fileURLWithPath: folder), database: database, budget: budget, refused: refused,
                keepsFiles: !options.studiesFromStore)
            return try MienService(options: options, models: models, metrics: metrics, studies: desk)
        } catch {
            database.close()
            throw error
        }
    }

    /// `text` (a database URL, or anything that may be one) with its password replaced by `***`: what a message
    /// may show of it.
    public static func redactedDatabaseURL(_ text: String) -> String { DatabaseURL.redacted(text) }

    /// Registers the study folder `folder` (`mien study init`) in the PostgreSQL database `store`.
    ///
    /// Servers with `--store` share it, and a server whose copy of the folder differs is refused.
    /// - Throws: `MienError` naming the folder or the database (without its password); `.invalidArgument` when the
    ///   database already holds a study of that name with other settings.
    public static func registerStudy(folder: URL, store: String) async throws {
        let url = try DatabaseURL(store)
        let settings = try CollectionSettings.read(folder: folder)
        let database = try await StudyDatabase.open(url, logger: CollectedStudy.logger)
        do {
            // Its stimuli kept, and the folder marked as not the record, as by every server that opens it.
            _ = try await PostgresStudyStore.open(
                database, folder: CollectionFolder(folder), settings: settings, keepsFiles: true)
        } catch {
            await database.retire()
            throw error
        }
        await database.retire()
    }

    private init(options: ServiceOptions, models: ModelStore, metrics: ServiceMetrics, studies: StudyDesk?) throws {
        self.options = options
        self.models = models
        self.metrics = metrics
        sessions = SessionLimiter(maximum: options.maximumSessions, gauge: metrics)
        pictures = DetectorPool(models: models)
        jobs = try JobQueue(
            folder: URL(fileURLWithPath: options.jobsFolder), models: models, maximumJobs: options.maximumJobs,
            metrics: metrics, generator: options.generator)
        self.studies = studies
    }

    /// The routes, grouped by resource, behind the error, access and method middleware.
    public func router() -> Router<MienRequestContext> {
        var groups: [any RouteGroup] = [
            DocumentRoutes(metrics: metrics, selfCheck: selfCheck, studies: studies),
            AnalyzeRoutes(options: options, metrics: metrics, pictures: pictures),
            JobRoutes(options: options, jobs: jobs),
            LiveRoutes(options: options, metrics: metrics, models: models, sessions: sessions),
        ]
        if let studies {
            groups += [
                StudyRoutes(desk: studies, models: models, metrics: metrics, options: options),
                DashboardRoutes(desk: studies),
            ]
        }
        let router = Router(context: MienRequestContext.self)
        router.middlewares.add(ErrorMiddleware())
        let servesStudies = studies != nil
        router.middlewares.add(
            AccessControl<MienRequestContext>(
                token: options.token, isOpen: { path in servesStudies && StudyRoutes.isParticipantRoute(path) }))
        router.middlewares.add(
            MethodCheck(paths: groups.flatMap(\.paths), sockets: ["/v1/live", "/studies/{name}/live"]))
        for group in groups { group.register(on: router) }
        return router
    }

    /// The application: HTTP/1.1 with the WebSocket upgrade, bound as `options` say.
    /// - Parameter onListening: called once the socket is bound, with the port (the chosen one when
    ///   `options.port` is 0).
    public func application(
        logger: Logger = Logger(label: "mien.serve"), onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = router()
        let webSocketResponder = router.buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            // Idle HTTP connections are closed; live sockets have their own idle limit (`live`).
            http1: .init(idleTimeout: .seconds(Int64(clamping: Int(saturating: options.idleSeconds, rounding: .up)))),
            ws: .init(maxFrameSize: options.maximumMessageBytes, closeTimeout: .seconds(5)))
        // As `.http1WebSocketUpgrade(webSocketRouter:configuration:)` builds it, behind RequestGuard.
        let requestTimeout = TimeAmount.nanoseconds(Int64(clamping: Int(saturating: options.idleSeconds * 1e9)))
        let limit = ConnectionLimit(
            total: options.maximumConnections, perSource: options.maximumConnectionsPerAddress,
            trusted: options.trustedProxies, logger: logger)
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                RequestGuard(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                    timeout: requestTimeout, limit: limit)
            },
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "mien"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully: stops accepting, closes live sockets with a
    /// close frame, lets requests in progress finish; whatever is still running after `shutdownGrace` is
    /// cancelled.
    ///
    /// With a `drain`, study participants in a stimulus first have that long to finish it (`/readyz` already says
    /// not ready, so a balancer sends new participants elsewhere); the shutdown then takes `drain +
    /// shutdownGrace` at most.
    ///
    /// - Note: Connections that have not sent a whole first request head (browsers open some ahead of time)
    ///   are closed at once by `RequestGuard`; Hummingbird's quiescing would not reach them. A request
    ///   still reading its body is cancelled after `shutdownGrace`. `mien serve` also ends the process on its
    ///   own deadline after the signal, should anything outlive both.
    public func run(
        logger: Logger = Logger(label: "mien.serve"), shutdownGrace: Duration = .seconds(5), drain: Duration = .zero,
        onListening: @escaping @Sendable (Int) -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        var services: [any Service] = [
            application(logger: logger, onListening: onListening), DetectorsShutdown(jobs: jobs, pictures: pictures),
        ]
        if let metrics = metricsApplication(onListening: onMetricsListening) { services.append(metrics) }
        // Last, so it shuts down first (the group goes in reverse order): study pages are told the server
        // restarts, and what they measured is recorded, while their sockets are still open.
        if let studies, let database = studies.database {
            services.append(StudiesUpkeep(desk: studies, database: database))
        }
        if let studies {
            services.append(LogTallyFlush(tally: CollectedStudy.tally))
            services.append(StudiesShutdown(desk: studies, grace: shutdownGrace * 0.6, drain: drain))
        }
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownGrace + drain
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Stops the service's own runs when it shuts down: the running job is stopped and reported interrupted (waiting
/// ones too), and the idle runs kept for `/v1/analyze` are stopped.
struct DetectorsShutdown: Service {
    let jobs: JobQueue
    let pictures: DetectorPool

    func run() async throws {
        // Throws only when the task is cancelled, which is a shutdown too.
        try? await gracefulShutdown()
        await jobs.stop()
        await pictures.close()
    }
}
