import Foundation
import Logging
import Mien
import MienStudies

/// How a folder store opens its study: the sessions read, what a killed server left recovered.
extension FolderStudyStore {
    /// Opens the study in `folder`: its sessions and counts read, what a killed server left mid-stimulus
    /// recovered into result files (`CollectionFolder.recover`), a participant left `started` marked incomplete
    /// (what it measured stays, and the ID may come back within the re-entry window), the manifests rewritten.
    /// - Throws: `MienError` when the counts or the manifests cannot be read or written.
    static func open(_ folder: CollectionFolder, settings: CollectionSettings, now: Date) throws -> FolderStudyStore {
        let name = folder.url.lastPathComponent
        let (sessions, problems) = folder.sessions()
        for problem in problems {
            CollectedStudy.logger.warning("study \(name): a session cannot be read: \(problem)")
        }
        var restored = StudyLedger()
        restored.counts = try FieldworkCounts.read(folder)
        for var session in sessions {
            let recovered = recoverLeftovers(&session, folder: folder, settings: settings, study: name, now: now)
            if recovered || session.state == .started {
                if session.state == .started {
                    session.state = .incomplete
                    session.reasonCode = .serverStopped
                    session.reason =
                        session.reason ?? "the server stopped during \(CollectedStudy.stepWords(session.step))"
                    session.finished = session.finished ?? SessionTime.timestamp(now)
                }
                try folder.write(session)
            }
            restored.sessions[session.participant] = session
            restored.nextNumber = max(restored.nextNumber, session.number + 1)
        }
        let store = FolderStudyStore(
            folder: folder, settings: settings, ledger: restored, logger: CollectedStudy.logger)
        try folder.writeManifests(sessions.map { restored.sessions[$0.participant] ?? $0 }, settings: settings)
        return store
    }

    /// Recovers the result files a killed server left of the session's stimuli into committed ones, with their
    /// progress; a leftover that cannot be recovered yet (a full disk) stays for the next start.
    /// - Returns: whether anything was recovered.
    private static func recoverLeftovers(
        _ session: inout ParticipantSession, folder: CollectionFolder, settings: CollectionSettings, study name: String,
        now: Date
    ) -> Bool {
        var recovered = false
        for stimulus in settings.stimuli where session.order.contains(stimulus.name) {
            do {
                guard
                    var progress = try folder.recover(
                        participant: session.participant, stimulus: stimulus, span: settings.fieldwork.frameSpan)
                else { continue }
                progress.recordingOnset = session.stimuli[stimulus.name]?.recordingOnset
                progress.lowestRate = session.stimuli[stimulus.name]?.lowestRate
                session.stimuli[stimulus.name] = progress
                session.state = .incomplete
                session.reasonCode = .serverStopped
                session.reason =
                    "the server stopped during \(stimulus.name) (\(SessionTime.percent(progress.coverage)) of it measured)"
                session.finished = session.finished ?? SessionTime.timestamp(now)
                recovered = true
                CollectedStudy.logger.warning(
                    "study \(name): participant #\(session.number): \(progress.analysed) frames of \(stimulus.name) recovered after the server stopped"
                )
            } catch {
                CollectedStudy.logger.error(
                    "study \(name): participant #\(session.number): what was measured of \(stimulus.name) cannot be recovered yet: \(error)"
                )
            }
        }
        return recovered
    }
}
