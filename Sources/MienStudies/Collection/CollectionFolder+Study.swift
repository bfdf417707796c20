import Foundation
import Mien
import MienCore

extension CollectionFolder {
    /// The study of every participant measured so far: the manifest's rows read from their result files, no
    /// analysis (the frames were analysed as they arrived).
    ///
    /// - Parameters:
    ///   - manifest: the manifest to read (`manifest.csv`, or a caller's copy of it).
    ///   - watched: whether the episode tracker followed a metric in the analysis.
    ///   - minimumShare: a row measured for less of its stimulus (the manifest's `measured`) is excluded, saying
    ///     so; an incomplete viewer measured enough is included and labelled (the study's `minimumShare`).
    ///   - viewingRules: a row whose page recorded a viewing that breaks one is excluded, naming the rule and by
    ///     how much; a row whose page recorded nothing is labelled "viewing not recorded" (nil: neither).
    ///   - content: where a recording's results are (nil: it has none); by default its files.
    /// - Returns: each row's series, in the manifest's order; a row whose files cannot be read is excluded with
    ///   the reason.
    package static func series(
        of manifest: StudyManifest, settings: StudySettings, watched: @escaping @Sendable (String) -> Bool,
        minimumShare: Double? = nil, viewingRules: ViewingRules? = nil,
        content: (String) throws -> StudyRecordingReader.Content? = CollectionFolder.resultFiles(ofRecording:)
    ) -> [ParticipantSeries] {
        var byLine: [Int: ParticipantSeries] = [:]
        for recording in manifest.recordings {
            let rows = manifest.rows.filter { $0.recording == recording }
            let found = Result { try content(recording) }
            for series in read(recording, rows: rows, content: found, settings: settings, watched: watched) {
                byLine[series.row.line] = series
            }
        }
        return labelled(
            manifest, byLine, minimumShare: minimumShare, viewingRules: viewingRules, exposure: settings.exposure)
    }

    /// The same as `series(of:settings:watched:minimumShare:viewingRules:content:)`, for results that arrive
    /// asynchronously (a database's): each recording's fetched with `content`, then read (parsed and binned) off the
    /// cooperative pool, one at a time so that memory holds one recording's lines.
    package static func series(
        of manifest: StudyManifest, settings: StudySettings, watched: @escaping @Sendable (String) -> Bool,
        minimumShare: Double? = nil, viewingRules: ViewingRules? = nil,
        content: (String) async throws -> StudyRecordingReader.Content?
    ) async -> [ParticipantSeries] {
        var byLine: [Int: ParticipantSeries] = [:]
        for recording in manifest.recordings {
            let rows = manifest.rows.filter { $0.recording == recording }
            let found: Result<StudyRecordingReader.Content?, any Error>
            do {
                found = .success(try await content(recording))
            } catch {
                found = .failure(error)
            }
            let read = await BlockingWork.run {
                Self.read(recording, rows: rows, content: found, settings: settings, watched: watched)
            }
            for series in read { byLine[series.row.line] = series }
        }
        return labelled(
            manifest, byLine, minimumShare: minimumShare, viewingRules: viewingRules, exposure: settings.exposure)
    }

    /// One recording's rows, read from its results (excluded, saying why, when it has none or they cannot be read).
    private static func read(
        _ recording: String, rows: [StudyManifest.Row], content: Result<StudyRecordingReader.Content?, any Error>,
        settings: StudySettings, watched: @escaping @Sendable (String) -> Bool
    ) -> [ParticipantSeries] {
        do {
            guard let content = try content.get() else {
                return rows.map {
                    ParticipantSeries(
                        row: $0, exclusion: "no results for this participant and stimulus (\(recording).jsonl)")
                }
            }
            return try StudyRecordingReader(content: content, settings: settings, watched: watched).read(rows)
        } catch {
            return rows.map { ParticipantSeries(row: $0, exclusion: "its results could not be read: \(error)") }
        }
    }

    /// The rows in the manifest's order, an incomplete viewer's labelled (or excluded under `minimumShare`), each
    /// viewing judged by `viewingRules`.
    private static func labelled(
        _ manifest: StudyManifest, _ byLine: [Int: ParticipantSeries], minimumShare: Double?,
        viewingRules: ViewingRules?, exposure: StudySettings.Exposure?
    ) -> [ParticipantSeries] {
        manifest.rows.compactMap { row in
            guard var series = byLine[row.line] else { return nil }
            if let measured = row.measured, let status = row.status, status != "complete" {
                let who =
                    switch status {
                    case "started": "still taking part"
                    case "screenedOut": "screened out"
                    default: "incomplete viewer"
                    }
                let words = "\(who): \(StudyRecordingReader.percent(measured)) of the stimulus measured"
                if let minimumShare, measured < minimumShare - 1e-9, series.included {
                    series.exclusion = "\(words) (the study's minimum \(StudyRecordingReader.percent(minimumShare)))"
                } else {
                    series.notes.append(words)
                }
            }
            if let exposures = row.exposures, exposures > 1 {
                if exposure == .firstOnly, series.included {
                    series.exclusion =
                        "\(exposures) exposures: shown the stimulus again after its first viewing was set aside (--exposure first-only reads first viewings only)"
                } else {
                    series.notes.append(
                        "\(exposures) exposures: the study reads the last, the first measured enough (the others were set aside); its viewing figures are summed over all \(exposures)"
                    )
                }
            }
            if let viewingRules, row.status != nil {
                if let figures = row.viewing {
                    let broken = viewingRules.broken(by: figures, duration: row.duration ?? 0)
                    if !broken.isEmpty, series.included { series.exclusion = broken.joined(separator: "; ") }
                } else {
                    series.notes.append("viewing not recorded")
                }
            }
            return series
        }
    }

    /// A recording's result files, when its JSON Lines exist.
    package static func resultFiles(ofRecording recording: String) -> StudyRecordingReader.Content? {
        let files = files(ofRecording: recording)
        guard let jsonl = files.jsonl, FileManager.default.fileExists(atPath: jsonl) else { return nil }
        return .files(jsonl: jsonl, events: files.events)
    }

    /// The study so far, from `manifest.csv`; nil while no participant has been measured.
    /// - Throws: `.unreadable` / `.corruptData` naming the manifest when it cannot be read.
    package func study(settings: StudySettings, watched: @escaping @Sendable (String) -> Bool) throws -> Study? {
        guard FileManager.default.fileExists(atPath: manifest.path) else { return nil }
        let table = try CSVRecords.read(path: manifest.path)
        guard !table.rows.isEmpty else { return nil }
        let manifest = try StudyManifest(path: manifest.path)
        return Study(participants: Self.series(of: manifest, settings: settings, watched: watched), settings: settings)
    }
}
