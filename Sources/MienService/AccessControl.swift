import Hummingbird

/// Requires the service's token on every request but `GET /healthz` and `GET /readyz` (and lets everything through when
/// the service has no token, which `ServiceOptions` allows on loopback only).
///
/// The token is read from `Authorization: Bearer …` or, for a browser's WebSocket (which cannot set
/// headers) and the page's links, from the `token` query parameter. Compared in constant time.
struct AccessControl<Context: RequestContext>: RouterMiddleware {
    let token: String?
    /// Paths open without the service token: a collected study's participant routes, which check the
    /// participant's own token where they write (`StudyRoutes`).
    var isOpen: @Sendable (String) -> Bool = { _ in false }

    /// What a load balancer or Kubernetes asks without a token: liveness and readiness.
    static var probes: Set<String> { ["/healthz", "/readyz"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let token, !Self.probes.contains(request.uri.path), !isOpen(request.uri.path) else {
            return try await next(request, context)
        }
        guard let given = Self.presented(request), Self.same(given, token) else {
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"mien\""],
                message: "this service needs its token: 'Authorization: Bearer <token>' or '?token=<token>'")
        }
        return try await next(request, context)
    }

    /// The token a request carries, if any.
    static func presented(_ request: Request) -> String? {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            return String(header.dropFirst("Bearer ".count))
        }
        return request.uri.queryParameters["token"].map(String.init)
    }

    /// Equality in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
