import Foundation
import Mien

/// `mien study` on a manifest: the analysed recordings' results read back, a row's series each.
extension StudyCommand {
    /// Every row's series, read from its recording's files (recordings read in parallel, `--jobs`).
    func read(
        _ manifest: StudyManifest, plan: OutputPlan, options: DetectorOptions, settings: StudySettings,
        failures: [String: String]
    ) -> [ParticipantSeries] {
        let recordings = manifest.recordings
        let episodes = options.episodes
        let batches = InputQueue(names: recordings, jobs: jobs).map { recording -> [ParticipantSeries] in
            let rows = manifest.rows.filter { $0.recording == recording }
            if let failure = failures[recording] {
                return rows.map {
                    ParticipantSeries(row: $0, exclusion: "the recording could not be analysed: \(failure)")
                }
            }
            let files = plan.files(for: recording)
            guard let jsonl = files.jsonl else { return [] }
            let reader = StudyRecordingReader(
                jsonl: jsonl, events: files.events, settings: settings, watched: { episodes.watches($0) })
            do {
                return try reader.read(rows)
            } catch {
                Diagnostics.report(error)
                return rows.map { ParticipantSeries(row: $0, exclusion: "its results could not be read: \(error)") }
            }
        }
        var byLine: [Int: ParticipantSeries] = [:]
        for series in batches.flatMap({ $0 ?? [] }) { byLine[series.row.line] = series }
        return manifest.rows.compactMap { byLine[$0.line] }
    }
}
