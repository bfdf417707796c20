import Foundation
import Mien
import Testing

@testable import MienService

/// Issue 77 item 5: the dashboard's counts agree with each other and with the log.
@Suite("Dashboard counts")
struct StudyDashboardCountsTests {
    typealias Collection = StudyCollectionTests

    /// Every "came back" the log says is a re-entry on the dashboard: a consent again whose earlier page is gone
    /// counts even while the session was still started (it counted only after `incomplete`).
    @Test func aConsentAgain_isAReentry_whateverTheStateBefore() async throws {
        let parent = try Collection.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try await study.admit(participant: "p1", group: nil)
        let again = try await study.admit(participant: "p1", group: nil)
        #expect(study.session("p1")?.state == .started && study.session("p1")?.reentries == 1)
        // A reload with the token, the session still started: not a re-entry, and the log says nothing of it.
        #expect(try await study.resume(token: again.token).state == "started")
        #expect(study.rows(exclusions: [:]).first?.reentries == 1)
    }
}
