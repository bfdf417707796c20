import Foundation
import Mien
import Testing

@testable import MienService
@testable import MienStudies

/// Issue 77 item 1: completion and screen-out are decisions over a session value (`ParticipantSession+Endings`),
/// tested with no socket, file, store or clock.
@Suite("Session endings on a value")
struct SessionEndingsTests {
    static let now = StudyLedgerAdmissionTests.start

    static func session(_ settings: CollectionSettings) -> ParticipantSession {
        ParticipantSession(
            participant: "p1", number: 1, group: nil, order: settings.stimuli.map(\.name), tokenDigest: "t",
            started: SessionTime.timestamp(now))
    }

    @Test func completion_needsEveryStimulusWatchedAndMeasured_andKeepsItsFirstCode() throws {
        let settings = try StudyLedgerAdmissionTests.settings(groups: [])
        var session = Self.session(settings)
        func refused(_ code: String) {
            do {
                try session.complete(code: "C0DE0001", settings: settings, now: Self.now)
                Issue.record("completed without \(code)")
            } catch let refusal as StudyRefusal {
                #expect(refusal.code == code, "\(refusal.code): \(refusal.message)")
            } catch { Issue.record("\(error)") }
        }
        refused("notWatched")
        session.stimuli["first"] = StudyCollectionTests.measured(to: 10, ended: true, duration: 10)
        refused("notWatched")
        // Played to its end, but measured for 20 %: no code.
        session.stimuli["second"] = StudyCollectionTests.measured(from: 8, to: 10, ended: true, duration: 10)
        refused("tooLittleMeasured")
        session.stimuli["second"] = StudyCollectionTests.measured(to: 10, ended: true, duration: 10)
        try session.complete(code: "C0DE0001", settings: settings, now: Self.now)
        #expect(session.state == .complete && session.code == "C0DE0001" && session.step == "done")
        // Asked again: the same code, whatever code the second request drew.
        try session.complete(code: "C0DE0002", settings: settings, now: Self.now)
        #expect(session.code == "C0DE0001")
        session.state = .incomplete
        refused("sessionEnded")
    }

    @Test func screenOut_onlyFromAStartedSession_sayingWhy() throws {
        let settings = try StudyLedgerAdmissionTests.settings(groups: [])
        var session = Self.session(settings)
        try session.screenOut(.noCamera, said: "the camera could not be turned on", now: Self.now)
        #expect(session.state == .screenedOut && session.reasonCode == .noCamera && session.finished != nil)
        #expect(throws: StudyRefusal.sessionEnded()) {
            try session.screenOut(.noFace, said: "no face", now: Self.now)
        }
        #expect(session.reasonCode == .noCamera)
    }
}
