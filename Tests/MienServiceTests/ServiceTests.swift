import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Mien
import MienService
import MienTesting
import NIOCore
import NIOWebSocket
import Testing
import WSCore

/// Every HTTP endpoint of `mien serve`, in process on a loopback port, with the bad inputs.
@Suite("mien serve: HTTP endpoints", .timeLimit(.minutes(10)))
struct ServiceHTTPTests {
    let schema: JSONSchemaValidator

    init() throws {
        schema = try JSONSchemaValidator(
            path: SampleMedia.repositoryRoot.appendingPathComponent("Schema/detector-result.schema.json").path)
    }

    static func service(token: String? = nil, host: String = "127.0.0.1", maximumBodyBytes: Int = 32 << 20) throws
        -> MienService
    {
        try MienService(
            options: ServiceOptions(host: host, port: 0, token: token, maximumBodyBytes: maximumBodyBytes),
            models: ModelStore())
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data([UInt8](buffer: buffer))) as? [String: Any])
    }

    static var astronaut: ByteBuffer {
        get throws { ByteBuffer(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))) }
    }

    @Test func healthzPageOpenAPIAndSchema_areServed() async throws {
        try await Self.service().application().test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect((try? Self.json(response.body))?["status"] as? String == "ok")
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect((try? Self.json(response.body))?["status"] as? String == "ready")
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("getUserMedia"))
                #expect(page.contains("/v1/live"))
                // Self-contained: no script, style or font from anywhere else.
                #expect(!page.contains("src=\"http"), "the page loads something from outside")
                #expect(!page.contains("href=\"http"), "the page links a stylesheet or font from outside")
            }
            try await client.execute(uri: "/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).hasPrefix("openapi: 3.1"))
            }
            try await client.execute(uri: "/detector-result.schema.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect((try? Self.json(response.body))?["title"] != nil)
            }
        }
    }

    @Test func analyze_findsTheAstronaut_validAgainstTheSchema() async throws {
        let (line, exposition) = try await Self.service().application().test(.live) { client in
            let line = try await client.execute(
                uri: "/v1/analyze?metrics=expressions,emotions&maxFaces=2", method: .post, body: try Self.astronaut
            ) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            let exposition = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            return (line, exposition)
        }
        let failures = schema.failures(ofJSON: line)
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let result = try JSONDecoder().decode(DetectorResult.self, from: Data(line.utf8))
        let face = try #require(result.faces?[0], "no face in the sample")
        #expect(face.faceBounds.iou(SampleMedia.astronautFace) > 0.5)
        #expect(face.expressions?[.smile] ?? 0 > 50, "the astronaut smiles")
        #expect(face.emotions != nil)
        #expect(face.gender == nil && face.glasses == nil, "appearance was not asked for")
        #expect(exposition.contains("mien_frames_analysed_total 1"))
    }

    /// The bad-input rows over HTTP: each gets a clear JSON error, and the service goes on answering.
    @Test func analyze_badInputs_getClearErrors() async throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath))
        let rows: [(String, String, ByteBuffer, HTTPResponse.Status, String)] = [
            ("empty body", "/v1/analyze", ByteBuffer(), .badRequest, "corruptData"),
            (
                "garbage", "/v1/analyze", ByteBuffer(string: "not a picture at all"), .unsupportedMediaType,
                "unsupportedFormat"
            ),
            // A JPEG cut after its header (one cut later decodes partially, as the command line reads it too).
            (
                "JPEG cut after its header", "/v1/analyze", ByteBuffer(bytes: [UInt8](jpeg.prefix(20))), .badRequest,
                "corruptData"
            ),
            ("unknown metric", "/v1/analyze?metrics=smiles", try Self.astronaut, .badRequest, "invalidOptions"),
            ("unknown parameter", "/v1/analyze?faces=2", try Self.astronaut, .badRequest, "invalidArgument"),
            (
                "a 20 kB face mode", "/v1/analyze?faceMode=" + String(repeating: "x", count: 20_000),
                try Self.astronaut, .badRequest, "invalidOptions"
            ),
            (
                "a GIF", "/v1/analyze", ByteBuffer(bytes: Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]),
                .unsupportedMediaType, "unsupportedFormat"
            ),
            ("maxFaces not a number", "/v1/analyze?maxFaces=many", try Self.astronaut, .badRequest, "invalidArgument"),
            ("maxFaces out of range", "/v1/analyze?maxFaces=0", try Self.astronaut, .badRequest, "invalidOptions"),
            // Read exactly as openapi.yaml declares them: JSON numbers, true / false, no empty metric group.
            ("maxFaces with a sign", "/v1/analyze?maxFaces=+5", try Self.astronaut, .badRequest, "invalidArgument"),
            ("minConfidence nan", "/v1/analyze?minConfidence=nan", try Self.astronaut, .badRequest, "invalidArgument"),
            ("baseline yes", "/v1/analyze?baseline=yes", try Self.astronaut, .badRequest, "invalidArgument"),
            (
                "empty metric group", "/v1/analyze?metrics=expressions,,emotions", try Self.astronaut, .badRequest,
                "invalidOptions"
            ),
            ("too large", "/v1/analyze", ByteBuffer(repeating: 0xFF, count: 2 << 20), .contentTooLarge, "tooLarge"),
            (
                "huge dimensions", "/v1/analyze", ByteBuffer(bytes: TinyPNG.headerOnly(width: 60_000, height: 60_000)),
                .contentTooLarge, "tooLarge"
            ),
        ]
        let errorSchema = try OpenAPIDocument().schema("Error")
        let bodies = try await Self.service(maximumBodyBytes: 1 << 20).application().test(.live) { client in
            var bodies: [String] = []
            for (what, uri, body, status, code) in rows {
                try await client.execute(uri: uri, method: .post, body: body) { response in
                    #expect(response.status == status, "\(what)")
                    let error = (try? Self.json(response.body))?["error"] as? [String: Any]
                    #expect(error?["code"] as? String == code, "\(what): \(String(buffer: response.body))")
                    #expect((error?["message"] as? String)?.isEmpty == false, "\(what)")
                    // A bad value is quoted, not echoed whole.
                    #expect(response.body.readableBytes < 1_000, "\(what): a \(response.body.readableBytes)-byte error")
                    if what == "a GIF" {
                        #expect((error?["message"] as? String)?.contains("GIF") == true, "\(what): says why")
                    }
                    bodies.append(String(buffer: response.body))
                }
            }
            // A known path with a method it does not take: 405 with the methods it does.
            for (uri, method, allowed) in [
                ("/v1/analyze", HTTPRequest.Method.get, "POST"), ("/healthz", .trace, "GET"),
                ("/v1/jobs/00000000-0000-0000-0000-000000000000", .put, "GET, DELETE"),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                    #expect(response.headers[.allow] == allowed, "\(method) \(uri)")
                    bodies.append(String(buffer: response.body))
                }
            }
            // The live socket asked for without the upgrade: 426, naming the protocol.
            try await client.execute(uri: "/v1/live", method: .get) { response in
                #expect(response.status == .upgradeRequired)
                #expect(response.headers[.upgrade] == "websocket")
                bodies.append(String(buffer: response.body))
            }
            try await client.execute(uri: "/v2/nothing", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/healthz", method: .get) { response in #expect(response.status == .ok) }
            return bodies
        }
        for body in bodies {
            #expect(errorSchema.failures(ofJSON: body).isEmpty, "\(body) breaks openapi.yaml's Error")
        }
    }

    @Test func openAPI_describesEveryRoute_andIsTheServedDocument() async throws {
        let document = try OpenAPIDocument()
        for operation in [
            "GET /healthz", "GET /", "GET /openapi.yaml", "GET /detector-result.schema.json", "GET /metrics",
            "POST /v1/analyze", "GET /v1/live", "POST /v1/jobs", "GET /v1/jobs/{id}", "DELETE /v1/jobs/{id}",
            "GET /v1/jobs/{id}/{output}",
        ] {
            #expect(document.operations.contains(operation), "openapi.yaml does not describe \(operation)")
        }
        let checkedIn = try String(contentsOfFile: OpenAPIDocument.path, encoding: .utf8)
        let (served, health) = try await Self.service().application().test(.live) { client in
            let served = try await client.execute(uri: "/openapi.yaml", method: .get) { String(buffer: $0.body) }
            let health = try await client.execute(uri: "/healthz", method: .get) { String(buffer: $0.body) }
            return (served, health)
        }
        #expect(served == checkedIn)
        #expect(try document.schema("Health").failures(ofJSON: health).isEmpty)
    }

    /// Issue 77: a Prometheus scrape that cannot send the token reads `/metrics` on a port of its own, and nothing
    /// else there; the service's port still wants the token for it.
    @Test func aMetricsPort_servesMetricsAlone_withoutTheToken() async throws {
        let options = try ServiceOptions(port: 0, token: "s3cret", metricsPort: 0)
        let service = try MienService(options: options, models: ModelStore())
        try await #require(service.metricsApplication()).test(.live) { client in
            let exposition = try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            #expect(exposition.contains("mien_frames_analysed"))
            for uri in ["/", "/healthz", "/openapi.yaml", "/v1/jobs", "/studies"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
        }
        try await service.application().test(.live) { client in
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .unauthorized) }
        }
        #expect(try MienService(options: ServiceOptions(port: 0), models: ModelStore()).metricsApplication() == nil)
        #expect(throws: MienError.self) { _ = try ServiceOptions(port: 8080, metricsPort: 8080) }
    }

    @Test func token_isRequiredEverywhereButHealthz() async throws {
        try await Self.service(token: "s3cret").application().test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            for uri in ["/", "/metrics", "/openapi.yaml", "/v1/live"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .unauthorized, "\(uri)")
                    #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                }
            }
            try await client.execute(uri: "/v1/analyze", method: .post, body: try Self.astronaut) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer wrong"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret"]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/analyze?token=s3cret", method: .post, body: try Self.astronaut) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func options_refuseAnOpenBindWithoutAToken() throws {
        #expect(throws: MienError.self) { try ServiceOptions(host: "0.0.0.0") }
        #expect(throws: MienError.self) { try ServiceOptions(host: "192.168.1.5", token: "") }
        #expect(throws: MienError.self) { try ServiceOptions(port: 70_000) }
        #expect(throws: MienError.self) { try ServiceOptions(maximumSessions: 0) }
        #expect(try ServiceOptions(host: "0.0.0.0", token: "t").token == "t")
        #expect(ServiceOptions.isLoopback("127.0.0.1") && ServiceOptions.isLoopback("::1"))
        #expect(ServiceOptions.isLoopback("localhost") && ServiceOptions.isLoopback("127.1.2.3"))
        #expect(!ServiceOptions.isLoopback("0.0.0.0") && !ServiceOptions.isLoopback("127.example.com"))
    }
}
