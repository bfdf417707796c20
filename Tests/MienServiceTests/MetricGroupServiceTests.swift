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

/// One group word, one meaning, over the service too: `POST /v1/analyze?metrics=WORD` and a live session opened
/// with `metrics=WORD` give exactly the catalog's fields for the word, as the command line does.
@Suite("mien serve: metric groups", .timeLimit(.minutes(10)))
struct MetricGroupServiceTests {
    static func face(fromResult result: [String: Any]?) -> [String: Any]? {
        ((result?["faces"] as? [String: Any])?["0"]) as? [String: Any]
    }

    @Test func analyze_eachWord_givesExactlyTheCatalogsFields() async throws {
        let service = try ServiceHTTPTests.service()
        let faces = try await service.application().test(.live) { client -> [String: [String: Any]] in
            var faces: [String: [String: Any]] = [:]
            for word in MetricGroup.words {
                try await client.execute(
                    uri: "/v1/analyze?metrics=\(word)", method: .post, body: try ServiceHTTPTests.astronaut
                ) { response in
                    #expect(response.status == .ok, "metrics=\(word)")
                    faces[word] = Self.face(fromResult: try? ServiceHTTPTests.json(response.body))
                }
            }
            return faces
        }
        for word in MetricGroup.words {
            let face = try #require(faces[word], "metrics=\(word): no face")
            let problems = MetricFields.mismatches(face: face, groups: MetricFields.groups(named: word))
            #expect(problems.isEmpty, "metrics=\(word): \(problems)")
        }
    }
}

/// The live half runs with the other live tests, one at a time: their session counts and timing are not
/// shared with sessions opened beside them.
extension LiveTests {
    @Test func liveSession_eachWord_givesExactlyTheCatalogsFields() async throws {
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        let service = try MienService(options: ServiceOptions(port: 0), models: ModelStore())
        let faces = try await service.application().test(.live) { client -> [String: [String: Any]] in
            let found = FaceLog()
            for word in MetricGroup.words {
                try await client.ws("/v1/live?rate=100&metrics=\(word)") { inbound, outbound, _ in
                    var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                    _ = try await messages.next()  // ready
                    try await outbound.write(.binary(LiveTests.frame(jpeg, milliseconds: 100)))
                    while let message = try await messages.next() {
                        guard case .text(let text) = message,
                            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                            object["type"] as? String == "result"
                        else { continue }
                        found.set(word, MetricGroupServiceTests.face(fromResult: object["result"] as? [String: Any]))
                        break
                    }
                    try await outbound.close(.normalClosure, reason: nil)
                }
            }
            return found.all
        }
        for word in MetricGroup.words {
            let face = try #require(faces[word], "live metrics=\(word): no face")
            let problems = MetricFields.mismatches(face: face, groups: MetricFields.groups(named: word))
            #expect(problems.isEmpty, "live metrics=\(word): \(problems)")
        }
    }
}

/// Faces collected by WebSocket handlers (which are `@Sendable`), by group word.
final class FaceLog: @unchecked Sendable {
    // Guarded by `lock`; JSON objects are only read after the sessions end.
    private var faces: [String: [String: Any]] = [:]
    private let lock = NSLock()
    func set(_ word: String, _ face: [String: Any]?) { lock.withLock { faces[word] = face } }
    var all: [String: [String: Any]] { lock.withLock { faces } }
}
