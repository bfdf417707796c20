import Foundation
import Hummingbird
import HummingbirdTesting
import Mien
import MienStudies
import MienTesting
import NIOCore
import Testing

@testable import MienService

/// The studies' HTTP routes: the service token on the researcher's only, consents limited per address, a known
/// ID's answer saying nothing of its state, declines counted, the fieldwork counts and the approval list.
@Suite("mien serve --studies: routes", .serialized)
struct StudyRouteTests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data([UInt8](buffer: buffer)))) as? [String: Any] ?? [:]
    }

    static func consent(_ body: String) -> ByteBuffer { ByteBuffer(string: body) }

    @Test func serviceToken_guardsTheResearchersRoutes_notTheParticipants() async throws {
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let service = try MienService(
            options: ServiceOptions(port: 0, token: "s3cret", studiesFolder: parent.path), models: ModelStore())
        try await service.application().test(.router) { client in
            for uri in ["/studies/ad", "/studies/ad/config"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "\(uri)") }
            }
            for uri in ["/studies", "/studies/ad/dashboard", "/studies/ad/dashboard/participants", "/v1/jobs/x"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .unauthorized, "\(uri)") }
            }
            try await client.execute(uri: "/studies/ad/participants/p1", method: .delete) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(
                uri: "/studies/ad/dashboard/participants", method: .get, headers: [.authorization: "Bearer s3cret"]
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "[]")
            }
            try await client.execute(uri: "/studies/nothing/config", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/studies/ad/stimuli/settings.json", method: .get) {
                #expect($0.status == .notFound)
            }
            try await client.execute(
                uri: "/studies/ad/sessions", method: .post, body: Self.consent(#"{"agreed":false}"#)
            ) {
                #expect($0.status == .badRequest)
            }
            // A participant's token opens nothing of the researcher's.
            let token = try await client.execute(
                uri: "/studies/ad/sessions", method: .post, body: Self.consent(#"{"agreed":true,"participant":"p1"}"#)
            ) { response -> String in
                #expect(response.status == .created)
                return Self.json(response.body)["token"] as? String ?? ""
            }
            try await client.execute(
                uri: "/studies/ad/dashboard/participants", method: .get, headers: [.authorization: "Bearer \(token)"]
            ) { #expect($0.status == .unauthorized) }
            try await client.execute(
                uri: "/studies/ad/complete", method: .post, headers: [.authorization: "Bearer \(token)"]
            ) { #expect($0.status == .conflict) }
        }
    }

    @Test func consents_areLimitedPerAddress_knownIDsAreNotProbed_declinesCounted() async throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.consentBurst = 5
        fieldwork.consentsPerMinute = 1
        fieldwork.screenoutURL = "https://panel.example.org/back?study=ad"
        fieldwork.screenoutCode = "NOCAM"
        fieldwork.targets = ["A": 3, "all": 6]
        let parent = try StudyCollectionTests.studies(fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        let service = try MienService(
            options: ServiceOptions(port: 0, token: "s3cret", studiesFolder: parent.path), models: ModelStore())
        let study = try #require(service.studies?.studies["ad"])
        // One completes (as sockets would record it), so the ID is known and cannot take part again.
        _ = try await study.admit(participant: "done", group: "A")
        for name in ["first", "second"] {
            try await StudyCollectionTests.watch(
                study, "done", name, progress: StudyCollectionTests.measured(to: 3, ended: true))
        }
        _ = try await study.complete("done")
        try await service.application().test(.router) { client in
            // A known ID, a new one: both answers say nothing of a state.
            try await client.execute(
                uri: "/studies/ad/sessions", method: .post, body: Self.consent(#"{"agreed":true,"participant":"done"}"#)
            ) { response in
                #expect(response.status == .conflict)
                let error = Self.json(response.body)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "cannotTakePart")
                #expect((error?["message"] as? String)?.contains("complete") == false)
            }
            try await client.execute(
                uri: "/studies/ad/declines", method: .post, body: Self.consent(#"{"participant":"x1","group":"A"}"#)
            ) { response in
                #expect(response.status == .ok)
                let redirect = Self.json(response.body)["redirect"] as? String ?? ""
                #expect(
                    redirect.hasPrefix(
                        "https://panel.example.org/back?study=ad&participant=x1&reason=declined&code=NOCAM"))
            }
            // 5 at once are taken (one already went to the decline), then 429 with Retry-After.
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<6 {
                try await client.execute(
                    uri: "/studies/ad/sessions", method: .post,
                    body: Self.consent(#"{"agreed":true,"participant":"b\#(index)"}"#)
                ) { response in
                    statuses.append(response.status)
                    if response.status == .tooManyRequests {
                        #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                    }
                }
            }
            #expect(statuses.filter { $0 == .created }.count == 3 && statuses.last == .tooManyRequests, "\(statuses)")
            try await client.execute(
                uri: "/studies/ad/dashboard/fieldwork", method: .get, headers: [.authorization: "Bearer s3cret"]
            ) { response in
                let summary = Self.json(response.body)
                let all = summary["all"] as? [String: Any]
                #expect(all?["complete"] as? Int == 1 && all?["declined"] as? Int == 1 && all?["target"] as? Int == 6)
                #expect(all?["agreed"] as? Int == 4 && all?["preparing"] as? Int == 3)
                let groups = summary["groups"] as? [[String: Any]]
                #expect(groups?.first?["group"] as? String == "A" && groups?.first?["target"] as? Int == 3)
                #expect((summary["refusedIDs"] as? [String: Int])?["already complete"] == 1)
            }
            try await client.execute(
                uri: "/studies/ad/dashboard/approvals.csv?tz=Asia/Tokyo", method: .get,
                headers: [.authorization: "Bearer s3cret"]
            ) { response in
                let lines = String(buffer: response.body).split(separator: "\n")
                let done = lines.first { $0.hasPrefix("done,") } ?? ""
                #expect(done.contains(",complete,approve,") && done.contains("+09:00"), "\(done)")
                #expect(!String(buffer: response.body).contains(parent.path), "no server path")
            }
            try await client.execute(
                uri: "/studies/ad/dashboard/approvals.csv?tz=Mars/Olympus", method: .get,
                headers: [.authorization: "Bearer s3cret"]
            ) { #expect($0.status == .badRequest) }
            try await client.execute(
                uri: "/studies/ad/dashboard/participants.csv", method: .get, headers: [.authorization: "Bearer s3cret"]
            ) { response in
                #expect(response.status == .ok)
                #expect(!String(buffer: response.body).contains(parent.path), "no server path in participants.csv")
            }
        }
    }
    /// Issue 78: `X-Forwarded-For` is believed only from a trusted proxy (`--trust-proxy`; none by default), and
    /// then only the address that proxy appended: 1,000 made-up addresses from one client are one address.
    @Test func forwardedFor_isBelievedOnlyFromATrustedProxy() throws {
        let loopback = [try AddressRange("127.0.0.1")]
        let pods = [try AddressRange("10.0.0.0/8"), try AddressRange("fd00::/8")]
        #expect(AddressRange.client(peer: "127.0.0.1", forwardedFor: "6.6.6.6", trusted: []) == "127.0.0.1")
        #expect(
            AddressRange.client(peer: "127.0.0.1", forwardedFor: "6.6.6.6, 5.5.5.5", trusted: loopback) == "5.5.5.5")
        #expect(AddressRange.client(peer: "192.0.2.9", forwardedFor: "6.6.6.6", trusted: loopback) == "192.0.2.9")
        // Two proxies (an Ingress behind a load balancer, both on the pod network): the first untrusted from the right.
        #expect(
            AddressRange.client(peer: "10.1.2.3", forwardedFor: "1.1.1.1, 203.0.113.7, 10.9.9.9", trusted: pods)
                == "203.0.113.7")
        #expect(
            AddressRange.client(peer: "::ffff:10.1.2.3", forwardedFor: "203.0.113.7", trusted: pods) == "203.0.113.7")
        #expect(AddressRange.client(peer: "10.1.2.3", forwardedFor: "not-an-address", trusted: pods) == "10.1.2.3")
        #expect(try AddressRange("10.1.2.3/8").description == "10.0.0.0/8")
        #expect(
            try AddressRange("fd00::1/8").contains("fdff::1") && !(try AddressRange("fd00::/8").contains("fe80::1")))
        for bad in ["10.0.0.0/33", "example.org", "10.0.0/8", "::/129", ""] {
            #expect(throws: MienError.self, "\(bad)") { try AddressRange(bad) }
        }
        #expect(throws: MienError.self) { try ServiceOptions(trustProxies: ["10.0.0.0/99"]) }
    }

    /// Issue 94 item 8: a per-address limit counts IPv6 by its /64 (one subscriber's 2^64 addresses are one source),
    /// and a proxy that can never be a peer of the socket is refused at start, naming both.
    @Test func limitsCountIPv6ByItsSlash64_andAProxyThatCanNeverConnectIsRefused() throws {
        #expect(AddressRange.limitKey("203.0.113.7") == "203.0.113.7")
        #expect(AddressRange.limitKey("::ffff:203.0.113.7") == "203.0.113.7")
        #expect(AddressRange.limitKey("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(AddressRange.limitKey("2001:db8:1:2:ffff:eeee:dddd:cccc") == "2001:db8:1:2::/64")
        #expect(AddressRange.limitKey("2001:db8:1:3::1") != AddressRange.limitKey("2001:db8:1:2::1"))
        #expect(AddressRange.limitKey("unknown") == "unknown")
        do {
            _ = try ServiceOptions(host: "::1", trustProxies: ["127.0.0.1"])
            Issue.record("::1 trusting 127.0.0.1 was accepted")
        } catch let error as MienError {
            #expect(error.message.contains("127.0.0.1/32") && error.message.contains("::1"), "\(error.message)")
        }
        #expect(throws: MienError.self) { try ServiceOptions(host: "127.0.0.1", trustProxies: ["::1"]) }
        // Reachable ones: the same family, IPv4 seen through a dual-stack socket, or a name (not checked).
        for (host, proxy) in [
            ("::1", "::1"), ("127.0.0.1", "127.0.0.0/8"), ("::", "10.0.0.0/8"),
            ("127.0.0.1", "::ffff:127.0.0.1/128"), ("localhost", "::1"),
        ] {
            #expect(throws: Never.self, "\(host) trusting \(proxy)") {
                _ = try ServiceOptions(host: host, token: "t", trustProxies: [proxy])
            }
        }
    }

    /// Issue 78: a body over a participant route's limit is 413 naming the limit, not "invalid".
    @Test func anOversizedBody_isRefusedAsTooLarge() async throws {
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let service = try MienService(
            options: ServiceOptions(port: 0, studiesFolder: parent.path), models: ModelStore())
        try await service.application().test(.router) { client in
            for size in [5_000, 1 << 20] {
                let padding = String(repeating: " ", count: size)
                try await client.execute(
                    uri: "/studies/ad/sessions", method: .post,
                    body: Self.consent(#"{"agreed":true,"participant":"big"\#(padding)}"#)
                ) { response in
                    #expect(response.status == .contentTooLarge, "\(size) bytes")
                    let error = Self.json(response.body)["error"] as? [String: Any]
                    #expect(error?["code"] as? String == "tooLarge")
                    #expect((error?["message"] as? String)?.contains("\(StudyRoutes.smallBody) bytes") == true)
                }
            }
        }
    }
}
