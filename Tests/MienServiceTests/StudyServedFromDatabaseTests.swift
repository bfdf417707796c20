import Foundation
import HTTPTypes
import HummingbirdTesting
import Mien
import MienStudies
import MienTesting
import NIOCore
import Testing

@testable import MienService

/// `mien serve --studies postgres://…`: a server given only the database's URL serves every study registered in it,
/// stimuli included.
@Suite("studies served from PostgreSQL alone", .serialized)
struct StudyServedFromDatabaseTests {
    @Test func aServerGivenOnlyTheURL_servesEveryStudy_andARecordStudyIsRefusedSayingWhy() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        try await MienService.registerStudy(folder: parent.appendingPathComponent("ad"), store: server.url())
        // A study that records the webcam keeps the recordings in its folder: not served from a temporary copy.
        let recording = parent.appendingPathComponent("rec")
        try FileManager.default.copyItem(at: parent.appendingPathComponent("ad"), to: recording)
        var settings = try CollectionSettings.read(folder: recording)
        settings.record = true
        try CollectionFolder.writeAtomically(try settings.encoded(), to: CollectionFolder(recording).settings.path)
        try await MienService.registerStudy(folder: recording, store: server.url())

        #expect(throws: MienError.self) {
            try ServiceOptions(port: 0, studiesFolder: server.url(), studiesStore: "postgres://other@db/x")
        }
        let options = try ServiceOptions(port: 0, studiesFolder: server.url())
        #expect(options.studiesFromStore && options.studiesStore == server.url())
        // The store alone (`--store-file F` or MIEN_STUDIES_URL, no --studies) is the same: no URL on a command line
        // (issue 96 item 14).
        let storeOnly = try ServiceOptions(port: 0, studiesStore: server.url())
        #expect(storeOnly.studiesFromStore && storeOnly.studiesStore == server.url() && storeOnly.studiesFolder != nil)
        let service = try await MienService.open(options: options, models: ModelStore())
        defer {
            service.studies?.database?.close()
            try? FileManager.default.removeItem(atPath: options.studiesFolder ?? "")
        }
        let desk = try #require(service.studies)
        #expect(Array(desk.studies.keys) == ["ad"])
        #expect(desk.refused["rec"]?.contains("serve it with --studies DIR --store URL") == true, "\(desk.refused)")
        #expect(desk.unready() == nil, "a study not served this way by design leaves the server ready")
        let clip = try Data(contentsOf: parent.appendingPathComponent("ad/stimuli/first.mp4"))
        try await service.application().test(.router) { client in
            try await client.execute(uri: "/studies/ad/stimuli/first.mp4", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(response.body.readableBytesView) == clip, "the registered file, byte for byte")
            }
            try await client.execute(
                uri: "/studies/ad/sessions", method: .post,
                body: ByteBuffer(string: #"{"agreed":true,"participant":"p1"}"#)
            ) { response in #expect(response.status == .created) }
        }
        #expect(desk.studies["ad"]?.sessions.map(\.participant) == ["p1"])
    }

    /// Issue 96 item 11: a study registered after the servers started, or a folder added under `--studies`, was
    /// answered 404 while `/readyz` said ready.
    @Test func aStudyAddedWhileTheServerRuns_isServed_andReadinessSaysWhyItIsNot() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        try await MienService.registerStudy(folder: parent.appendingPathComponent("ad"), store: server.url())
        let options = try ServiceOptions(port: 0, studiesStore: server.url())
        let service = try await MienService.open(options: options, models: ModelStore())
        defer {
            service.studies?.database?.close()
            try? FileManager.default.removeItem(atPath: options.studiesFolder ?? "")
        }
        let desk = try #require(service.studies)
        #expect(Array(desk.studies.keys) == ["ad"])
        // `mien study init --store` registers another study while the server runs.
        let later = parent.appendingPathComponent("later")
        try FileManager.default.copyItem(at: parent.appendingPathComponent("ad"), to: later)
        try await MienService.registerStudy(folder: later, store: server.url())
        try await service.application().test(.router) { client in
            try await client.execute(uri: "/studies/later/config", method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(
                uri: "/studies/later/sessions", method: .post,
                body: ByteBuffer(string: #"{"agreed":true,"participant":"p1"}"#)
            ) { response in #expect(response.status == .created) }
            // A name no study has is still 404, and asked again within 5 s is not looked for again.
            for _ in 0..<2 {
                try await client.execute(uri: "/studies/nosuch/config", method: .get) { response in
                    #expect(response.status == .notFound)
                }
            }
            try await client.execute(uri: "/readyz", method: .get) { response in #expect(response.status == .ok) }
        }
        #expect(desk.studies["later"]?.sessions.map(\.participant) == ["p1"])
        #expect(desk.unready() == nil)

        // Without a database: a folder made under --studies while the server runs.
        let folders = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: folders) }
        let local = try MienService(
            options: ServiceOptions(port: 0, studiesFolder: folders.path), models: ModelStore())
        try FileManager.default.copyItem(
            at: folders.appendingPathComponent("ad"), to: folders.appendingPathComponent("added"))
        // And one whose stimulus does not match its settings: not served, and readiness says why.
        let broken = folders.appendingPathComponent("broken")
        try FileManager.default.copyItem(at: folders.appendingPathComponent("ad"), to: broken)
        try Data("not the clip".utf8).write(to: broken.appendingPathComponent("stimuli/first.mp4"))
        try await local.application().test(.router) { client in
            try await client.execute(uri: "/studies/added/config", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/studies/broken/config", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let reason = StudyRouteTests.json(response.body)["reason"] as? String ?? ""
                #expect(
                    reason.hasPrefix("study broken is not served: ") && !reason.contains("see the log"), "\(reason)")
            }
        }
    }
}
