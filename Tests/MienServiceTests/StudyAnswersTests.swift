import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Mien
import MienStudies
import MienTesting
import NIOCore
import Testing

@testable import MienService

/// Answers to a collected study's questions: a page kept whole only once its stimulus was watched, refused whole
/// when one answer is wrong, completion only once every page was sent, nothing after it; kept in both stores
/// (a database's read back as `mien study export` reads it) and refused over HTTP for another participant or in
/// bulk.
@Suite("mien serve --studies: answers", .serialized)
struct StudyAnswersTests {
    typealias Collection = StudyCollectionTests

    /// After `first`: a 7-point liking scale; at the end: a single choice and optional free text.
    static func questions() throws -> StudyQuestions {
        try StudyQuestions(
            parsing: """
                question: liking
                after: first
                type: scale 7
                text: How much did you like it?
                anchors: Not at all | Very much

                question: seen
                type: single
                text: Seen it before?
                options: Yes | No

                question: why
                type: text
                text: Anything else?
                """, file: "questions.txt", stimuli: ["first", "second"])
    }

    /// `study.answer`, its page's type spelled out.
    @discardableResult
    func answer(_ study: CollectedStudy, _ id: String, _ page: [String: StudyAnswer.Given]) async throws -> [String] {
        try await study.answer(id, page)
    }

    @Test(arguments: Collection.Store.allCases)
    func aPage_isKeptWholeOnceDue_andCompletionWaitsForEveryPage(_ store: Collection.Store) async throws {
        let parent = try Collection.studies(groups: [], questions: try Self.questions())
        defer { try? FileManager.default.removeItem(at: parent) }
        let server = store == .postgres ? try await PostgresServer.start() : nil
        defer { server?.stop() }
        var database: StudyDatabase?
        if let server {
            database = try await StudyDatabase.open(
                try DatabaseURL(server.url()), logger: Logger(label: "mien.test.database"))
        }
        defer { database?.close() }
        let folder = parent.appendingPathComponent("ad")
        let study =
            if let database {
                try await CollectedStudy(folder: folder, database: database)
            } else {
                try CollectedStudy(folder: folder)
            }
        let token = try await Collection.consented(study, "p1")
        await Collection.refusal(.conflict, code: "notYetAsked") {
            _ = try await answer(study, "p1", ["liking": .number(6)])
        }
        try await Collection.watch(study, "p1", "first", progress: Collection.measured(to: 2.9, ended: true))
        // Refused whole, nothing kept: out of range, a page not whole, two pages at once, an unknown question.
        await Collection.refusal(.badRequest, code: "invalidAnswer") {
            _ = try await answer(study, "p1", ["liking": .number(8)])
        }
        await Collection.refusal(.badRequest, code: "invalidAnswer") {
            _ = try await answer(study, "p1", ["liking": .number(6), "seen": .string("Yes"), "why": .none])
        }
        await Collection.refusal(.badRequest, code: "unknownQuestion") {
            _ = try await answer(study, "p1", ["liking": .number(6), "other": .number(1)])
        }
        #expect(study.session("p1")?.answers == nil)
        #expect(try await answer(study, "p1", ["liking": .number(6)]) == ["liking"])
        #expect(try await answer(study, "p1", ["liking": .number(6)]) == ["liking"], "the same page again: nothing new")
        await Collection.refusal(.conflict, code: "alreadyAnswered") {
            _ = try await answer(study, "p1", ["liking": .number(2)])
        }
        await Collection.refusal(.conflict, code: "notYetAsked") {
            _ = try await answer(study, "p1", ["seen": .string("No"), "why": .none])
        }
        try await Collection.watch(study, "p1", "second", progress: Collection.measured(to: 2.9, ended: true))
        await Collection.refusal(.conflict, code: "notAnswered") { _ = try await study.complete("p1") }
        await Collection.refusal(.badRequest, code: "invalidAnswer") {
            _ = try await answer(study, "p1", ["seen": .none, "why": .string("great")])
        }
        #expect(
            try await answer(study, "p1", ["seen": .string("No"), "why": .string(" Liked the \"end\" ")]).sorted()
                == ["liking", "seen", "why"])
        #expect(try await study.resume(token: token).answered.count == 3, "a page coming back asks none again")
        _ = try await study.complete("p1")
        await Collection.refusal(.conflict, code: "sessionEnded") {
            _ = try await answer(study, "p1", ["liking": .number(6)])
        }
        // What the store keeps: the folder's session file, or the database's rows as an export reads them.
        let kept: [ParticipantSession]
        if let server {
            let archive = try await StudyArchive.open(url: server.url(), study: "ad")
            kept = archive.sessions
            await archive.close()
        } else {
            kept = CollectionFolder(folder).sessions().sessions
        }
        let answers = try #require(kept.first { $0.participant == "p1" }?.answers)
        #expect(answers.map(\.question) == ["liking", "seen", "why"])
        #expect(
            answers.map(\.score) == [6, nil, nil] && answers[1].choices == ["No"]
                && answers[2].text == #"Liked the "end""#)
        let rows = AnswerTable.csv(kept, questions: try Self.questions()).split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).prefix(8).joined(separator: ",")
        }
        #expect(
            rows == [
                "p1,,complete,liking,first,scale 7,6,6", "p1,,complete,seen,end,single,,No",
                #"p1,,complete,why,end,text,,"Liked the ""end""""#,
            ])
    }

    /// Over HTTP: the token's own participant only, a body of at most 64 KiB, thousands of answers refused, a study
    /// without questions saying so; nothing kept by any of them.
    @Test func theRoute_refusesAnotherParticipantAndBulk_keepingNothing() async throws {
        let parent = try Collection.studies(groups: [], questions: try Self.questions())
        defer { try? FileManager.default.removeItem(at: parent) }
        let service = try MienService(
            options: ServiceOptions(port: 0, token: "s3cret", studiesFolder: parent.path), models: ModelStore())
        let study = try #require(service.studies?.studies["ad"])
        let token = try await Collection.consented(study, "p1")
        _ = try await Collection.consented(study, "p2")
        try await Collection.watch(study, "p1", "first", progress: Collection.measured(to: 2.9, ended: true))
        let bearer: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        try await service.application().test(.router) { client in
            func post(_ body: String, headers: HTTPFields? = nil) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(
                    uri: "/studies/ad/answers", method: .post, headers: headers ?? bearer,
                    body: ByteBuffer(string: body)
                ) { ($0.status, String(buffer: $0.body)) }
            }
            #expect(try await post(#"{"answers":{"liking":6}}"#, headers: [:]).0 == .unauthorized)
            let other = try await post(#"{"participant":"p2","answers":{"liking":6}}"#)
            #expect(other.0 == .forbidden && other.1.contains("notYours"))
            let many = (0..<10_000).map { #""q\#($0)":1"# }.joined(separator: ",")
            #expect(try await post(#"{"answers":{\#(many)}}"#).0 == .contentTooLarge)
            let some = (0..<200).map { #""q\#($0)":1"# }.joined(separator: ",")
            let unknown = try await post(#"{"answers":{\#(some)}}"#)
            #expect(unknown.0 == .badRequest && unknown.1.contains("and 195 more"))
            #expect(try await post(#"{"answers":"six"}"#).0 == .badRequest)
            #expect(study.session("p1")?.answers == nil && study.session("p2")?.answers == nil)
            let kept = try await post(#"{"participant":"p1","answers":{"liking":6}}"#)
            #expect(kept.0 == .ok && kept.1.contains("liking"))
            try await client.execute(
                uri: "/studies/ad/dashboard/answers.csv", method: .get, headers: [.authorization: "Bearer s3cret"]
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("p1,,started,liking,first,scale 7,6,6,"))
            }
            try await client.execute(
                uri: "/studies/ad/dashboard/participants", method: .get, headers: [.authorization: "Bearer s3cret"]
            ) { response in
                let rows =
                    (try? JSONSerialization.jsonObject(with: Data([UInt8](buffer: response.body)))) as? [[String: Any]]
                #expect(rows?.first { $0["participant"] as? String == "p1" }?["answered"] as? Int == 1)
            }
        }
        // A study without questions says so.
        let plain = try Collection.studies(groups: [])
        defer { try? FileManager.default.removeItem(at: plain) }
        let without = try CollectedStudy(folder: plain.appendingPathComponent("ad"))
        _ = try await Collection.consented(without, "p1")
        await Collection.refusal(.notFound, code: "noQuestions") {
            _ = try await answer(without, "p1", ["liking": .number(6)])
        }
    }
}
