import Foundation
import HTTPTypes
import Mien
import MienStudies
import Testing

@testable import MienService

/// Issue 77 item 5: the dashboard's counts agree with each other and with the log.
@Suite("Dashboard counts")
struct StudyDashboardCountsTests {
    typealias Collection = StudyCollectionTests

    /// Every "came back" the log says is a re-entry on the dashboard: a page's token back after the session was marked
    /// incomplete; a reload that finds its session still started is not, and (issue 94) a consent with the ID is no
    /// way back at all.
    @Test func aPageBackAfterLeaving_isAReentry_aReloadIsNot() async throws {
        let parent = try Collection.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        let first = try await study.admit(participant: "p1", group: nil)
        // A reload with the token, the session still started: not a re-entry, and the log says nothing of it.
        #expect(try await study.resume(token: first.token).state == "started")
        #expect(study.session("p1")?.reentries == 0)
        await Collection.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        _ = await study.record("p1") { session in
            session.state = .incomplete
            session.finished = SessionTime.timestamp(Date())
        }
        #expect(try await study.resume(token: first.token).state == "started")
        #expect(study.session("p1")?.state == .started && study.session("p1")?.reentries == 1)
        #expect(study.rows(exclusions: [:]).first?.reentries == 1)
    }
}
