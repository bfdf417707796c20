import Foundation
import Hummingbird
import HummingbirdTesting
import Mien
import MienStudies
import MienTesting
import Testing

@testable import MienService

/// What a panel's link says of a participant (`&age=25-34`; issue 80 item 5): only a declared attribute with a
/// declared value is kept, in both stores, and reaches the manifest's `attribute.NAME` columns `mien study` reads.
@Suite("mien serve --studies: panel attributes", .serialized)
struct StudyPanelAttributesTests {
    typealias Collection = StudyCollectionTests

    static let attributes = [
        PanelAttribute(name: "age", values: ["18-24", "25-34", "35+"]),
        PanelAttribute(name: "sex", values: ["female", "male"]),
    ]

    @Test func declarations_areChecked() throws {
        #expect(try PanelAttribute(parsing: "age=18-24, 25-34,35+").values == ["18-24", "25-34", "35+"])
        for bad in [
            "age", "=a,b", "group=a,b", "age=", "age=a,,b", "age=a,a", "a ge=x",
            "age=\(String(repeating: "x", count: 41))",
        ] {
            #expect(throws: MienError.self, "\(bad)") { try PanelAttribute(parsing: bad) }
        }
        #expect(
            PanelAttribute.kept(["age": "25-34", "sex": "robot", "name": "Jane Doe"], declared: Self.attributes)
                == ["age": "25-34"])
        #expect(PanelAttribute.kept(["name": "Jane"], declared: Self.attributes) == nil)
        #expect(PanelAttribute.kept(["age": "25-34"], declared: nil) == nil, "a study that declares none keeps none")
        // `35+` filled into a link unencoded arrives as `35 ` (a `+` in a query is a space): still 35+ (issue 96).
        #expect(PanelAttribute.kept(["age": "35 "], declared: Self.attributes) == ["age": "35+"])
        #expect(PanelAttribute.kept(["age": "35"], declared: Self.attributes) == nil)
        #expect(
            PanelAttribute.dropped(["age": "35", "sex": "robot", "name": "x"], declared: Self.attributes) == [
                "age", "sex",
            ])
    }

    @Test(arguments: Collection.Store.allCases)
    func aLinksAttributes_areKeptAsDeclared_inTheSessionAndTheManifest(_ store: Collection.Store) async throws {
        let parent = try Collection.studies(groups: [], attributes: Self.attributes)
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Collection.open(store, parent)
        defer { stop() }
        _ = try await study.admit(
            participant: "p1", group: nil, attributes: ["age": "25-34", "sex": "robot", "email": "p1@example.org"])
        _ = try await study.admit(participant: "p2", group: nil, attributes: nil)
        _ = try await study.admit(participant: "p3", group: nil, attributes: ["sex": "female", "age": "35 "])
        #expect(study.session("p1")?.attributes == ["age": "25-34"], "undeclared names and values dropped")
        #expect(study.session("p3")?.attributes == ["sex": "female", "age": "35+"], "a + read as a space is still +")
        // The dashboard counts the values dropped, by attribute (p1's sex).
        #expect(await study.summary().attributesDropped == ["sex": 1])
        #expect(study.session("p2")?.attributes == nil)
        // A consent again with the ID is refused, and what the first link said is kept.
        await Collection.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil, attributes: ["age": "18-24"])
        }
        #expect(study.session("p1")?.attributes == ["age": "25-34"])
        for id in ["p1", "p2", "p3"] {
            try await Collection.framed(study, id)
            _ = try await Collection.watch(study, id, "first", progress: Collection.measured(to: 2.9, ended: true))
        }
        let sessions = ["p1", "p2", "p3"].compactMap { study.session($0) }
        let text = CollectionFolder.manifests(sessions, settings: study.settings).live
        #expect(
            text.hasPrefix("recording,") && text.split(separator: "\n")[0].hasSuffix(",attribute.age,attribute.sex"))
        let file = parent.appendingPathComponent("manifest-copy.csv")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let rows = try StudyManifest(path: file.path).rows
        #expect(rows.first { $0.participant == "p1" }?.attributes == ["age": "25-34"])
        #expect(rows.first { $0.participant == "p2" }?.attributes == nil)
        #expect(rows.first { $0.participant == "p3" }?.attributes == ["age": "35+", "sex": "female"])
    }

    /// The consent body's attributes over HTTP: a body whose attributes are not text is refused, nothing kept.
    @Test func aConsentWithAttributesThatAreNotText_isRefused() async throws {
        let parent = try Collection.studies(groups: [], attributes: Self.attributes)
        defer { try? FileManager.default.removeItem(at: parent) }
        let service = try MienService(
            options: ServiceOptions(port: 0, token: "s3cret", studiesFolder: parent.path), models: ModelStore())
        try await service.application().test(.router) { client in
            try await client.execute(
                uri: "/studies/ad/sessions", method: .post,
                body: StudyRouteTests.consent(#"{"agreed":true,"participant":"p9","attributes":{"age":["25-34"]}}"#)
            ) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(
                uri: "/studies/ad/sessions", method: .post,
                body: StudyRouteTests.consent(#"{"agreed":true,"participant":"p8","attributes":{"age":"18-24"}}"#)
            ) { response in
                #expect(response.status == .created)
            }
        }
        let kept = try JSONDecoder().decode(
            ParticipantSession.self,
            from: Data(contentsOf: parent.appendingPathComponent("ad/participants/p8/session.json")))
        #expect(kept.attributes == ["age": "18-24"])
        #expect(!FileManager.default.fileExists(atPath: parent.appendingPathComponent("ad/participants/p9").path))
    }
}
