import Foundation
import Hummingbird
import HummingbirdTesting
import Mien
import MienTesting
import NIOCore
import Testing

@testable import MienService

/// A collected study as the service keeps it: consent, groups and orders, tokens, refusals, erasure, a restart,
/// and the service token asked for on the researcher's routes only.
@Suite("mien serve --studies", .serialized)
struct StudyCollectionTests {
    /// A studies folder holding one study `ad` with two stimuli (copies of the sample clip) and `groups`.
    static func studies(
        groups: [String] = ["A", "B"], order: CollectionSettings.Order = .fixed, maximum: Int? = nil
    ) throws -> URL {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("mien-studies-\(UUID().uuidString)")
        let folder = CollectionFolder(parent.appendingPathComponent("ad"))
        try FileManager.default.createDirectory(at: folder.stimuli, withIntermediateDirectories: true)
        let clip = try Data(
            contentsOf: URL(
                fileURLWithPath: SampleMedia.repositoryRoot.appendingPathComponent("Samples/astronaut-pan-zoom.mp4")
                    .path))
        var stimuli: [CollectionSettings.Stimulus] = []
        for name in ["first", "second"] {
            try clip.write(to: folder.stimuli.appendingPathComponent("\(name).mp4"))
            stimuli.append(.init(name: name, file: "\(name).mp4", sha256: ModelStore.sha256(clip), duration: 3))
        }
        let settings = try CollectionSettings(
            stimuli: stimuli, groups: groups, order: order, consent: "ok", maximumParticipants: maximum)
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        return parent
    }

    static func refusal(_ status: HTTPResponse.Status, _ work: () throws -> Void) {
        #expect {
            try work()
        } throws: { error in
            (error as? ServiceRefusal)?.status == status
        }
    }

    @Test func consent_balancesGroups_rotatesOrders_andRefusesReplaysBadIDsAndAFullStudy() throws {
        let parent = try Self.studies(order: .counterbalanced, maximum: 4)
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        let first = try study.admit(participant: "p1", group: nil)
        let second = try study.admit(participant: "p2", group: nil)
        let third = try study.admit(participant: "p3", group: "B")
        #expect([first.group, second.group, third.group] == ["A", "B", "B"])
        #expect(first.order == ["first", "second"] && second.order == ["second", "first"])
        #expect(try study.admit(participant: nil, group: nil).group == "A", "the group with the fewest")
        Self.refusal(.conflict) { _ = try study.admit(participant: "p1", group: nil) }
        Self.refusal(.badRequest) { _ = try study.admit(participant: "../p9", group: nil) }
        Self.refusal(.badRequest) { _ = try study.admit(participant: "p9", group: "C") }
        Self.refusal(.forbidden) { _ = try study.admit(participant: "p9", group: nil) }
        // A token is its participant's, and only this study's.
        #expect(try study.participant(token: first.token) == "p1")
        Self.refusal(.unauthorized) { _ = try study.participant(token: "not-a-token") }
        Self.refusal(.unauthorized) { _ = try study.participant(token: nil) }
        // The folder keeps the token's digest, never the token.
        let stored = try String(contentsOf: study.folder.session("p1"), encoding: .utf8)
        #expect(!stored.contains(first.token) && stored.contains(CollectedStudy.digest(first.token)))
    }

    @Test func stimuli_oneSocketAtATime_completionNeedsEveryStimulus_andARestartKeepsEveryone() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        var study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try study.admit(participant: "done", group: nil)
        _ = try study.admit(participant: "left", group: nil)
        _ = try study.admit(participant: "busy", group: nil)
        var progress = ParticipantSession.StimulusProgress()
        progress.frames = 30
        progress.analysed = 30
        progress.ended = true
        for name in ["first", "second"] {
            let stimulus = try study.beginStimulus("done", stimulus: name)
            Self.refusal(.conflict) { _ = try study.beginStimulus("done", stimulus: name) }
            study.endStimulus("done", stimulus: stimulus, progress: progress)
        }
        Self.refusal(.conflict) { _ = try study.beginStimulus("done", stimulus: "first") }  // watched already
        Self.refusal(.notFound) { _ = try study.beginStimulus("done", stimulus: "nothing") }
        Self.refusal(.conflict) { _ = try study.complete("left") }  // nothing watched
        let (redirect, code) = try study.complete("done")
        #expect(redirect == nil && code.count == 8)
        Self.refusal(.conflict) { _ = try study.complete("done") }
        // Left halfway: incomplete, with the share measured.
        var half = ParticipantSession.StimulusProgress()
        half.frames = 15
        half.coverage = 0.5
        let first = try study.beginStimulus("left", stimulus: "first")
        study.endStimulus("left", stimulus: first, progress: half)
        #expect(study.session("left")?.state == .incomplete)
        #expect(study.session("left")?.reason?.contains("50 %") == true)
        // A restart: the completed and the incomplete are kept; one mid-session becomes incomplete.
        study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        #expect(study.session("done")?.state == .complete)
        #expect(study.session("left")?.state == .incomplete)
        #expect(study.session("busy")?.state == .incomplete)
        #expect(study.session("busy")?.reason?.contains("server stopped") == true)
        let manifest = try StudyManifest(path: study.folder.manifest.path)
        #expect(
            manifest.rows.map { "\($0.participant)/\($0.stimulus)" }.sorted() == [
                "done/first", "done/second", "left/first",
            ])
        // Erasure: every file, and the manifest's rows.
        #expect(try study.delete("done"))
        #expect(!FileManager.default.fileExists(atPath: study.folder.participant("done").path))
        #expect(try StudyManifest(path: study.folder.manifest.path).rows.map(\.participant) == ["left"])
        #expect(try !study.delete("done"))
    }

    @Test func aStimulusChangedSinceInit_isNotServed() throws {
        let parent = try Self.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let file = parent.appendingPathComponent("ad/stimuli/first.mp4")
        try Data("edited".utf8).write(to: file)
        let desk = try StudyDesk(parent: parent)
        #expect(desk.studies.isEmpty)
        #expect(desk.refused["ad"]?.contains("SHA-256") == true)
    }

    @Test func recordings_areWebMOrMP4() {
        #expect(CollectedStudy.isVideo([0x1A, 0x45, 0xDF, 0xA3, 1, 2]))
        #expect(CollectedStudy.isVideo([0, 0, 0, 0x20] + Array("ftypisom".utf8)))
        #expect(!CollectedStudy.isVideo(Array("%PDF-1.7".utf8)))
        #expect(!CollectedStudy.isVideo([]))
    }

    @Test func serviceToken_guardsTheResearchersRoutes_notTheParticipants() async throws {
        let parent = try Self.studies()
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
                uri: "/studies/ad/sessions", method: .post, body: ByteBuffer(string: #"{"agreed":false}"#)
            ) { #expect($0.status == .badRequest) }
            // A participant's token opens nothing of the researcher's.
            let token = try await client.execute(
                uri: "/studies/ad/sessions", method: .post,
                body: ByteBuffer(string: #"{"agreed":true,"participant":"p1"}"#)
            ) { response -> String in
                #expect(response.status == .created)
                let object =
                    try JSONSerialization.jsonObject(with: Data([UInt8](buffer: response.body))) as? [String: Any]
                return object?["token"] as? String ?? ""
            }
            try await client.execute(
                uri: "/studies/ad/dashboard/participants", method: .get, headers: [.authorization: "Bearer \(token)"]
            ) { #expect($0.status == .unauthorized) }
            try await client.execute(
                uri: "/studies/ad/complete", method: .post, headers: [.authorization: "Bearer \(token)"]
            ) { #expect($0.status == .conflict) }
        }
    }

    @Test func participantRoutes_areTheStudiesOwnOnly() {
        for path in ["/studies/ad", "/studies/ad/config", "/studies/ad/live", "/studies/ad/recording/complete"] {
            #expect(StudyRoutes.isParticipantRoute(path), "\(path)")
        }
        for path in [
            "/studies", "/studies/ad/dashboard", "/studies/ad/dashboard/study.html", "/studies/ad/participants/p1",
            "/v1/live", "/",
        ] {
            #expect(!StudyRoutes.isParticipantRoute(path), "\(path)")
        }
    }
}
