package import Foundation
import Mien

/// How a session ends, as decisions over its value: completion and screen-out. `CollectedStudy` runs each inside
/// one store transaction (`complete`, `screenOut`); the tests run them on a value (`StudyLedgerAdmissionTests`).
extension ParticipantSession {
    /// Marks the session complete with `code`, once every stimulus was watched and measured enough (and the
    /// recording uploaded, when the study records, and every page of the study's questions sent); a session already
    /// complete stays as it is (a page asking again is told its code again).
    /// - Throws: `StudyRefusal` conflicts: `sessionEnded`, `notWatched` naming the stimuli, `tooLittleMeasured`,
    ///   `recordingMissing`, `notAnswered` naming the questions.
    package mutating func complete(code: String, settings: CollectionSettings, now: Date) throws {
        if state == .complete { return }
        guard state == .started else {
            throw StudyRefusal.sessionEnded()
        }
        let missing = order.filter { stimuli[$0]?.ended != true }
        guard missing.isEmpty else {
            throw StudyRefusal(
                .conflict, code: "notWatched", message: "not yet watched: \(missing.joined(separator: ", "))")
        }
        guard measuredEnough(settings.fieldwork) else {
            throw StudyRefusal(
                .conflict, code: "tooLittleMeasured",
                message: "too little of a video was measured (with a face in view) for this study to count it")
        }
        if settings.record, !recordingComplete {
            throw StudyRefusal(
                .conflict, code: "recordingMissing", message: "the webcam recording has not been uploaded")
        }
        let unanswered = unanswered(settings).map(\.id)
        guard unanswered.isEmpty else {
            throw StudyRefusal(
                .conflict, code: "notAnswered",
                message: "not yet answered: \(unanswered.joined(separator: ", "))")
        }
        state = .complete
        step = "done"
        self.code = code
        // Never told to the participant: their completion stands; the rules only decide whom the quota counts.
        if settings.fieldwork.targetsCountEveryone != true {
            let broken = viewingBroken(settings)
            belowQuality = broken.isEmpty ? nil : broken.joined(separator: "; ")
        }
        finished = SessionTime.timestamp(now)
        lastSeen = SessionTime.timestamp(now)
    }

    /// Screens the session out for `reason`, said in the researcher's words.
    /// - Throws: `StudyRefusal.sessionEnded` for a session that is not started.
    package mutating func screenOut(_ reason: Reason, said: String, now: Date) throws {
        guard state == .started else {
            throw StudyRefusal.sessionEnded()
        }
        state = .screenedOut
        reasonCode = reason
        self.reason = said
        finished = SessionTime.timestamp(now)
    }
}
