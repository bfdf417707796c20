public import Hummingbird
public import Logging

/// `GET /metrics` alone on a port of its own, without the token (`ServiceOptions.metricsPort`).
///
/// A Prometheus that finds pods by annotation cannot send the service's token, so the HPA never saw
/// `mien_study_sockets`. The exposition holds counts, gauges and timings only (nothing of a participant, no path),
/// so it is served without the token, on its own port: the service's port keeps requiring the token for
/// everything else. Bound to the service's `host`.
extension MienService {
    /// The metrics listener's application, or nil without `options.metricsPort`.
    public func metricsApplication(
        logger: Logger = Logger(label: "mien.serve.metrics"), onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> (some ApplicationProtocol)? {
        guard let port = options.metricsPort else { return nil as Application<RouterResponder<BasicRequestContext>>? }
        let router = Router()
        router.get("/metrics") { [metrics] _, _ in
            DocumentRoutes.file(metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: port), serverName: "mien-metrics"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
