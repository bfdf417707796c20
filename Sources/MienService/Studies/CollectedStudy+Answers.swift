import Foundation
import Logging
import Mien
import MienStudies

/// Answers to the study's questions (`--questions`), a page at a time.
extension CollectedStudy {
    /// Keeps a page of `id`'s answers (`ParticipantSession.answer`), written before it is said.
    /// - Returns: the IDs of every question they have answered so far.
    /// - Throws: `ServiceRefusal` as `ParticipantSession.answer` says; 503 when the store cannot keep it.
    func answer(_ id: String, _ given: [String: StudyAnswer.Given]) async throws -> [String] {
        let now = clock()
        let (session, kept) = try await decide(id) { [settings] session, _ in
            try session.answer(given, settings: settings, now: now)
        }
        if kept {
            let after = given.keys.compactMap { settings.questions?.question($0) }.first?.after
            Self.logger.info(
                "study \(name): participant #\(session.number) answered \(given.count) question\(given.count == 1 ? "" : "s") \(after.map { "after \($0)" } ?? "at the end")"
            )
        }
        return (session.answers ?? []).map(\.question)
    }
}
