import Foundation
import Mien
import MienCore
import MienStudies

/// A collected study's per-frame results as its database holds them, read recording by recording for an
/// aggregation (`mien study --store`, `StudyArchive`, a dashboard on a database store).
struct StoredResults: Sendable {
    let database: StudyDatabase
    let study: String
    let sessions: [ParticipantSession]
    let settings: CollectionSettings

    /// The manifest `manifest.csv` would hold (recordings named relative to the study); nil while nobody has been
    /// measured.
    /// - Throws: `.corruptData` when it cannot be read back (it is made here: never expected).
    func manifest() throws -> StudyManifest? {
        let text = CollectionFolder.manifests(sessions, settings: settings).live
        guard text.split(separator: "\n").count > 1 else { return nil }
        return try StudyManifest(text: text, source: "\(database.url) study \(study)")
    }

    /// The number of a participant's attempt at a stimulus that is not set aside (the last begun).
    static func currentAttempt(_ session: ParticipantSession, _ stimulus: String) -> Int {
        session.currentAttempt(stimulus)
    }

    /// The attempt a manifest row's recording (`participants/<id>/<stimulus>`) names: the participant's last.
    private func key(ofRecording recording: String) -> ResultKey? {
        for session in sessions {
            for stimulus in settings.stimuli
            where CollectionFolder.recordingName(participant: session.participant, stimulus: stimulus.name)
                == recording
            {
                return ResultKey(
                    study: study, participant: session.participant, stimulus: stimulus.name,
                    attempt: Self.currentAttempt(session, stimulus.name))
            }
        }
        return nil
    }

    /// A manifest row's results (nil: none kept): the JSON Lines, and the events table `.events.csv` would hold
    /// (the episodes the lines finished, then those still open at the end).
    /// - Throws: `StudyStoreFailure` when they cannot be read.
    func content(ofRecording recording: String) async throws -> StudyRecordingReader.Content? {
        guard let key = key(ofRecording: recording) else { return nil }
        let (lines, end) = try await database.results(key)
        guard !lines.isEmpty else { return nil }
        let source = "\(database.url) study \(study) \(recording)"
        // Decoding every line is seconds of work for a long stimulus: off the cooperative pool, which serves the
        // participants' sockets (a dashboard aggregating on it once made a replica miss its health checks).
        let events = try await BlockingWork.run { () throws -> String in
            var events = EventTable.headerLine + "\n"
            try JSONLinesReader.forEachResult(in: lines, source: source) { result in
                for event in result.episodes {
                    if let line = EventTable.line(for: event, input: key.stimulus) { events += line + "\n" }
                }
            }
            for event in try end.map({ try JSONDecoder().decode([EpisodeEvent].self, from: $0.episodes) }) ?? [] {
                if let line = EventTable.line(for: event, input: key.stimulus) { events += line + "\n" }
            }
            return events
        }
        return .memory(lines: lines, events: events, source: source)
    }
}
