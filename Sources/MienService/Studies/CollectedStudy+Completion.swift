import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies

/// Completion, once every stimulus was watched and measured, and how a result line names a participant in the log.
extension CollectedStudy {
    /// Marks the participant complete once every stimulus was watched and measured enough.
    ///
    /// Every stimulus must have played to its end and been measured for the study's minimum share (and the
    /// recording be uploaded, with `record`). Written before it is said: a participant is given a code only when
    /// the folder holds it.
    /// - Returns: the completion URL with the participant and their code, if the study has one, and the code the
    ///   participant is shown (Prolific's own with `--panel prolific`), in the panel's conventions.
    /// - Throws: `ServiceRefusal` 409 naming the stimuli not yet watched or measured too little; 503 when the
    ///   folder cannot be written.
    func complete(_ id: String) async throws -> (url: String?, code: String) {
        let now = clock()
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%08X", UInt32.random(in: 0...UInt32.max, using: &generator))
        let session = try await commit(id) { [settings] session, _ in
            try session.complete(code: code, settings: settings, now: now)
        }
        let seconds = (SessionTime.date(session.finished) ?? now).timeIntervalSince(
            SessionTime.date(session.started) ?? now)
        Self.logger.info("study \(name): participant #\(session.number) complete after \(Int(saturating: seconds)) s")
        // In the panel's conventions: Prolific's own code and link, or the participant's code appended.
        let (redirect, shown) = settings.fieldwork.panelConventions.completion(
            settings.completionURL, participant: id, code: session.code ?? "")
        return (redirect, shown)
    }

    /// `text` for the server's log: the participant's folder (named by their panel ID) and the study folder's path
    /// left out, as logs name participants by number only and no server path.
    func logged(_ text: String, of id: String, number: Int) -> String {
        text.replacingOccurrences(of: folder.participant(id).path, with: "participant #\(number)'s folder")
            .replacingOccurrences(of: folder.url.path, with: "the study folder")
    }
}
