import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies

/// The ways out: a participant screened out (no camera, no face framed) and someone who declined consent, each
/// sent back to the panel with the study's screen-out redirect.
extension CollectedStudy {
    /// A participant who cannot take part (no camera, no face framed): screened out, sent back to the panel.
    /// - Returns: the screen-out redirect, if the study has one.
    /// - Throws: `ServiceRefusal` 409 for a participant who is not started.
    func screenOut(_ id: String, reason: ParticipantSession.Reason) async throws -> String? {
        let words: [ParticipantSession.Reason: String] = [
            .noCamera: "the camera could not be turned on",
            .noFace: "the face could not be framed in \(settings.framing.attempts) tries",
        ]
        guard let said = words[reason] else {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidArgument", message: "a screen-out reason is noCamera or noFace")
        }
        let now = clock()
        let session = try await commit(id) { session, _ in try session.screenOut(reason, said: said, now: now) }
        Self.logger.info("study \(name): participant #\(session.number) screened out (\(reason.rawValue))")
        return screenoutRedirect(participant: id, reason: reason.rawValue)
    }

    /// Someone who declined consent: counted by the link's group, nothing else kept.
    /// - Returns: the screen-out redirect, if the study has one.
    func declined(participant: String?, group: String?, signature: String? = nil) async -> String? {
        let group =
            settings.fieldwork.linkedGroup(group, signature: signature).flatMap {
                settings.groups.contains($0) ? $0 : nil
            } ?? ""
        if let failure = await store.apply({ $0.counts.declined[group, default: 0] += 1 }).failure {
            Self.logger.error("study \(name): a decline cannot be counted in \(store.description): \(failure)")
        }
        Self.logger.info("study \(name): someone declined consent")
        return screenoutRedirect(
            participant: participant.flatMap { CollectionSettings.isParticipantID($0) ? $0 : nil },
            reason: "declined")
    }

    /// The screen-out link, in the panel's conventions (`PanelConventions`).
    func screenoutRedirect(participant: String?, reason: String) -> String? {
        settings.exitLink(.screenout, participant: participant, reason: reason)
    }
}
