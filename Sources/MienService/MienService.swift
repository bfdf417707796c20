import Foundation
public import Hummingbird
import HummingbirdCore
public import HummingbirdWebSocket
public import Logging
public import Mien
import NIOCore
import NIOWebSocket
import Prometheus
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `mien serve`: Mien over HTTP and WebSocket, for browsers and any language.
///
/// A thin layer: every endpoint maps its input to a `Detector` and its output to Mien's result schema.
/// - `GET /`: the live page; `GET /healthz`; `GET /metrics` (Prometheus); `GET /openapi.yaml`;
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

    /// - Throws: `.ioFailure` naming the jobs folder when it cannot be created.
    public init(options: ServiceOptions, models: ModelStore, metrics: ServiceMetrics = ServiceMetrics()) throws {
        self.options = options
        self.models = models
        self.metrics = metrics
        sessions = SessionLimiter(maximum: options.maximumSessions, gauge: metrics)
        pictures = DetectorPool(models: models)
        jobs = try JobQueue(
            folder: URL(fileURLWithPath: options.jobsFolder), models: models, maximumJobs: options.maximumJobs,
            metrics: metrics)
    }

    /// The routes, behind the error and access middleware.
    public func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(ErrorMiddleware())
        router.middlewares.add(AccessControl(token: options.token))
        router.get("/healthz") { _, _ in JSONBody.response(["status": "ok"]) }
        router.get("/") { _, _ in Self.file(ServiceResources.page, type: "text/html; charset=utf-8") }
        router.get("/openapi.yaml") { _, _ in Self.file(ServiceResources.openAPI, type: "application/yaml") }
        router.get("/detector-result.schema.json") { _, _ in
            Self.file(ServiceResources.resultSchema, type: "application/schema+json")
        }
        router.get("/metrics") { [metrics] _, _ in
            Self.file(metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.post("/v1/analyze") { request, _ in try await analyze(request) }
        // The live page's self-check (`/?autostart=1&selfcheck=SECONDS`): what it received and drew, with a
        // picture of it; kept in memory (the last one only) for whoever checks the setup, the browser test first.
        router.post("/v1/selfcheck") { [selfCheck] request, _ in
            let body = try await request.body.collect(upTo: Self.selfCheckBytes)
            guard (try? JSONSerialization.jsonObject(with: Data([UInt8](buffer: body)))) is [String: Any] else {
                throw MienError(.invalidArgument, "a self-check report is a JSON object", input: "request body")
            }
            selfCheck.store([UInt8](buffer: body))
            return Response(status: .noContent)
        }
        router.get("/v1/selfcheck") { [selfCheck] _, _ in
            guard let report = selfCheck.last else {
                throw MienError(.notFound, "no page has sent its self-check yet", input: "/v1/selfcheck")
            }
            return Self.file(report, type: "application/json")
        }
        router.post("/v1/jobs") { request, _ in try await submitJob(request) }
        router.get("/v1/jobs/{id}") { [jobs] _, context in
            let id = try context.parameters.require("id")
            guard JobQueue.isJobID(id), let status = jobs.status(of: id) else { throw Self.noJob(id) }
            return JSONBody.response(status)
        }
        router.get("/v1/jobs/{id}/{output}") { [jobs] _, context in
            let id = try context.parameters.require("id")
            let output = try context.parameters.require("output")
            guard JobQueue.isJobID(id), let status = jobs.status(of: id) else { throw Self.noJob(id) }
            guard let url = jobs.output(output, of: id), let type = JobQueue.outputs[output]?.type,
                let bytes = try? Data(contentsOf: url)
            else {
                throw ServiceRefusal(
                    status: .notFound, code: "notFound",
                    message: status.state == .done
                        ? "a job has \(JobQueue.outputs.keys.sorted().joined(separator: ", ")), not \(output)"
                        : "the job is \(status.state.rawValue); its outputs come when it is done")
            }
            return Self.file([UInt8](bytes), type: type)
        }
        router.delete("/v1/jobs/{id}") { [jobs] _, context in
            let id = try context.parameters.require("id")
            guard jobs.remove(id) else { throw Self.noJob(id) }
            return Response(status: .noContent)
        }
        router.ws("/v1/live") { inbound, outbound, context in
            let query = context.request.uri.queryParameters.map { (String($0.key), String($0.value)) }
            try await live(query: query, inbound: inbound, outbound: outbound, logger: context.logger)
        }
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
            http1: .init(idleTimeout: .seconds(Int64(options.idleSeconds.rounded(.up)))),
            ws: .init(maxFrameSize: options.maximumMessageBytes, closeTimeout: .seconds(5)))
        // As `.http1WebSocketUpgrade(webSocketRouter:configuration:)` builds it, behind FirstRequestGuard.
        let firstRequestTimeout = TimeAmount.nanoseconds(Int64(options.idleSeconds * 1e9))
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                FirstRequestGuard(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                    timeout: firstRequestTimeout)
            },
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "mien"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully: stops accepting, closes live sockets with a
    /// close frame, lets requests in progress finish; whatever is still running after `shutdownGrace` is
    /// cancelled.
    ///
    /// - Note: Connections that have not sent a whole first request head (browsers open some ahead of time)
    ///   are closed at once by `FirstRequestGuard`; Hummingbird's quiescing would not reach them. A request
    ///   still reading its body is cancelled after `shutdownGrace`. `mien serve` also ends the process on its
    ///   own deadline after the signal, should anything outlive both.
    public func run(
        logger: Logger = Logger(label: "mien.serve"), shutdownGrace: Duration = .seconds(5),
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        var configuration = ServiceGroupConfiguration(
            services: [application(logger: logger, onListening: onListening), JobsShutdown(jobs: jobs)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownGrace
        try await ServiceGroup(configuration: configuration).run()
    }

    // MARK: - Routes

    private func analyze(_ request: Request) async throws -> Response {
        let settings = try AnalysisSettings(
            query: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
        let detectorOptions = try settings.detectorOptions()
        let body = try await request.body.collect(upTo: options.maximumBodyBytes)
        let arrival = ContinuousClock.now
        let bytes = [UInt8](buffer: body)
        let (pictures, maximumPixels) = (self.pictures, options.maximumPixels)
        let key = try String(decoding: JSONLinesWriter.makeEncoder().encode(settings), as: UTF8.self)
        let result = try await Offload.run {
            let frame = try ImageDecoder.decode(bytes: bytes, input: "request body", maximumPixels: maximumPixels)
            return try pictures.analyze(frame, options: detectorOptions, key: key)
        }
        metrics.framesAnalysed.increment()
        metrics.latency.record(ContinuousClock.now - arrival)
        return JSONBody.response(result)
    }

    /// Streams the upload to the job's folder (refused past `maximumUploadBytes`), then queues it: 202 with
    /// the job's status and its URL in `Location`.
    private func submitJob(_ request: Request) async throws -> Response {
        var query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let name = query.first { $0.0 == "name" }?.1 ?? "upload"
        query.removeAll { $0.0 == "name" }
        let settings = try AnalysisSettings(query: query)
        let detectorOptions = try settings.detectorOptions()
        let (id, folder) = try jobs.reserve()
        let upload = folder.appendingPathComponent("upload")
        do {
            try await Self.save(request.body, to: upload, limit: options.maximumUploadBytes)
        } catch {
            jobs.release(id)
            throw error
        }
        jobs.submit(id: id, input: name, upload: upload, settings: settings, options: detectorOptions)
        var response = JSONBody.response(jobs.status(of: id), status: .accepted)
        response.headers[.location] = "/v1/jobs/\(id)"
        return response
    }

    /// Writes a request body to `url` as it arrives, never holding more than one chunk in memory.
    /// - Throws: `.tooLarge` past `limit` bytes, `.corruptData` for an empty body, `.ioFailure`.
    private static func save(_ body: RequestBody, to url: URL, limit: Int) async throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: url.path)
        else { throw MienError(.ioFailure, "cannot create the upload's file", input: url.path) }
        defer { try? handle.close() }
        var written = 0
        for try await chunk in body {
            written += chunk.readableBytes
            guard written <= limit else {
                throw MienError(.tooLarge, "the upload is over the limit of \(limit) bytes", input: "request body")
            }
            try handle.write(contentsOf: chunk.readableBytesView)
        }
        guard written > 0 else { throw MienError(.corruptData, "the upload is empty", input: "request body") }
    }

    private static func noJob(_ id: String) -> ServiceRefusal {
        ServiceRefusal(status: .notFound, code: "notFound", message: "no job \(id)")
    }

    private func live(
        query: [(String, String)], inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger
    ) async throws {
        guard sessions.open() else {
            let body = ErrorBody(
                code: "tooManySessions", message: "\(options.maximumSessions) live sessions are open; try again later")
            try await outbound.write(.text(LiveMessage.failure(body).text()))
            try await outbound.close(.unknown(1013), reason: "too many sessions")
            return
        }
        defer { sessions.close() }
        let outbox = LiveOutbox(capacity: options.maximumOutgoingMessages)
        let session = LiveSession(
            id: UUID().uuidString.lowercased(), limits: options, models: models, metrics: metrics, outbox: outbox)
        let activity = LastActivity()
        let idle = Duration.seconds(options.idleSeconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in outbox.messages {
                    try await outbound.write(.text(message))
                    outbox.written()
                }
                // A client that left `maximumOutgoingMessages` unread is told so and closed, never served a
                // stream with holes in it.
                if outbox.overflowed {
                    try await outbound.close(.policyViolation, reason: "the client reads too slowly")
                }
            }
            group.addTask {
                // Closes a session that has been silent for `idleSeconds`.
                while true {
                    try await Task.sleep(for: .seconds(1))
                    if activity.silence > idle {
                        let body = ErrorBody(code: "idle", message: "no message for \(idle); closing")
                        try await outbound.write(.text(LiveMessage.failure(body).text()))
                        try await outbound.close(.goingAway, reason: "idle")
                        return
                    }
                }
            }
            do {
                let settings = try AnalysisSettings(query: query)
                try await session.begin(settings)
            } catch {
                outbox.send(
                    LiveMessage.failure(
                        (error as? MienError).map(ErrorBody.init)
                            ?? ErrorBody(code: "internalFailure", message: "\(error)")
                    ).text())
            }
            for try await message in inbound.messages(maxSize: options.maximumMessageBytes) {
                activity.touch()
                switch message {
                case .binary(let buffer): session.receiveFrame([UInt8](buffer: buffer))
                case .text(let text): await session.receiveText(text)
                }
            }
            await session.end()
            outbox.close()
            group.cancelAll()
        }
        logger.debug("live session \(session.id) ended")
    }

    /// The largest self-check report (it carries a PNG of the page's video and drawing).
    static let selfCheckBytes = 16 << 20

    private static func file(_ bytes: [UInt8], type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Counts open live sessions against the limit (and mirrors the count in the metrics' gauge).
final class SessionLimiter: Sendable {
    private let count = Mutex(0)
    private let maximum: Int
    private let metrics: ServiceMetrics

    init(maximum: Int, gauge metrics: ServiceMetrics) {
        self.maximum = maximum
        self.metrics = metrics
    }

    /// Takes a place; false when every place is taken.
    func open() -> Bool {
        let opened = count.withLock { count -> Int? in
            guard count < maximum else { return nil }
            count += 1
            return count
        }
        if let opened { metrics.openSessions.set(Double(opened)) }
        return opened != nil
    }

    func close() {
        metrics.openSessions.set(
            Double(
                count.withLock { count in
                    count -= 1
                    return count
                }))
    }
}

/// When a live socket last received a message (for its idle limit).
final class LastActivity: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    func touch() { instant.withLock { $0 = ContinuousClock.now } }

    /// Time since the last message.
    var silence: Duration { ContinuousClock.now - instant.withLock { $0 } }
}

/// The last self-check report a live page sent.
final class SelfCheckBox: Sendable {
    private let report = Mutex<[UInt8]?>(nil)

    func store(_ bytes: [UInt8]) { report.withLock { $0 = bytes } }

    var last: [UInt8]? { report.withLock { $0 } }
}

/// Marks the job queue stopped when the service shuts down: the running job is stopped and reported
/// interrupted, waiting ones too.
struct JobsShutdown: Service {
    let jobs: JobQueue

    func run() async throws {
        try? await gracefulShutdown()
        jobs.stop()
    }
}
