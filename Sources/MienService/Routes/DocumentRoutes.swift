import Foundation
import Hummingbird
import HummingbirdWebSocket
import Mien
import MienCore
import NIOCore

/// What the service says about itself: `/healthz`, `/readyz`, the live page at `/`, `/openapi.yaml`, the result
/// schema, Prometheus `/metrics`, and the live page's self-check (`/v1/selfcheck`).
struct DocumentRoutes: RouteGroup {
    let metrics: ServiceMetrics
    let selfCheck: SelfCheckBox
    /// The studies served, whose store readiness asks (nil: none).
    let studies: StudyDesk?

    /// The largest self-check report (it carries a PNG of the page's video and drawing).
    static let selfCheckBytes = 16 << 20

    var paths: [(String, [HTTPRequest.Method])] {
        [
            ("/healthz", [.get]), ("/readyz", [.get]), ("/", [.get]), ("/openapi.yaml", [.get]),
            ("/detector-result.schema.json", [.get]),
            ("/metrics", [.get]), ("/v1/selfcheck", [.get, .post]),
        ]
    }

    func register(on router: Router<MienRequestContext>) {
        router.get("/healthz") { _, _ in JSONBody.response(["status": "ok"]) }
        // Readiness (a load balancer's or Kubernetes' probe): not while shutting down, nor while a study this server
        // should serve could not be opened. Whether new participants can be taken (the studies' database answers) is
        // said apart, with 200: an outage of the database every server shares is no reason to take them all out.
        router.get("/readyz") { [studies] _, _ in
            if let reason = studies?.unready() {
                return JSONBody.response(["status": "notReady", "reason": reason], status: .serviceUnavailable)
            }
            if let reason = await studies?.accepting() {
                return JSONBody.response(["status": "ready", "newParticipants": "no", "reason": reason])
            }
            return JSONBody.response(["status": "ready", "newParticipants": "yes"])
        }
        router.get("/") { _, _ in Self.file(ServiceResources.page, type: "text/html; charset=utf-8") }
        router.get("/openapi.yaml") { _, _ in Self.file(ServiceResources.openAPI, type: "application/yaml") }
        router.get("/detector-result.schema.json") { _, _ in
            Self.file(ServiceResources.resultSchema, type: "application/schema+json")
        }
        router.get("/metrics") { [metrics] _, _ in
            Self.file(metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
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
    }

    /// `bytes` as a 200 of `type`, never cached.
    static func file(_ bytes: [UInt8], type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// The last self-check report a live page sent.
final class SelfCheckBox: Sendable {
    private let report = Locked<[UInt8]?>(nil)

    func store(_ bytes: [UInt8]) { report.withLock { $0 = bytes } }

    var last: [UInt8]? { report.withLock { $0 } }
}
