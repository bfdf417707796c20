import Foundation
import HTTPTypes
import HummingbirdTesting
import Mien
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
}
