import HTTPTypes
import Hummingbird

/// What the router cannot say by itself about a path it knows.
///
/// 405 with `Allow` for a method the path does not take (the router would answer 404), and 426 for a plain
/// GET of a WebSocket path (it would answer an empty 200). Unknown paths still get the router's 404.
struct MethodCheck<Context: RequestContext>: RouterMiddleware {
    /// Path patterns split into segments, with their methods.
    private let table: [([Substring], [HTTPRequest.Method])]
    /// Path patterns that are WebSocket upgrades only.
    private let sockets: [[Substring]]

    init(paths: [(String, [HTTPRequest.Method])], sockets: [String]) {
        table = paths.map { ($0.0.split(separator: "/"), $0.1) }
        self.sockets = sockets.map { $0.split(separator: "/") }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        if let allowed = methods(for: path), !allowed.contains(request.method) {
            throw HTTPError(
                .methodNotAllowed, headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")],
                message: "\(path) takes \(allowed.map(\.rawValue).joined(separator: ", ")), not \(request.method)")
        }
        if sockets.contains(where: { Self.matches($0, path.split(separator: "/")) }),
            request.headers[.upgrade]?.lowercased() != "websocket"
        {
            throw HTTPError(
                .upgradeRequired, headers: [.upgrade: "websocket", .connection: "Upgrade"],
                message: "\(path) is a WebSocket: send the upgrade request")
        }
        return try await next(request, context)
    }

    /// The methods of the first pattern `path` matches, or nil for an unknown path.
    private func methods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        return table.first { Self.matches($0.0, segments) }?.1
    }

    /// Whether `segments` fit `pattern`, whose `{name}` segments match any one segment.
    private static func matches(_ pattern: [Substring], _ segments: [Substring]) -> Bool {
        pattern.count == segments.count
            && zip(pattern, segments).allSatisfy { wanted, given in
                (wanted.first == "{" && wanted.last == "}") || wanted == given
            }
    }
}
