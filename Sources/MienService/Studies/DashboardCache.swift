import Foundation
import Mien
import MienCore

/// Each study's aggregation for the dashboard, recomputed only when a participant's data changed since.
final class DashboardCache: Sendable {
    /// The aggregated study and when it was made, or nil while nobody has been measured.
    struct Entry: Sendable {
        var generation: Int
        var study: Study?
        var problems: [StudyManifest.Problem]
    }
    private let entries = Locked<[String: Entry]>([:])

    /// The study of `collected` now (aggregated again if its data changed).
    /// - Throws: `MienError` when the manifest cannot be read.
    func entry(of collected: CollectedStudy) throws -> Entry {
        let generation = collected.generation
        if let cached = entries.withLock({ $0[collected.name] }), cached.generation == generation { return cached }
        let options = try CollectionAnalysis.options(collected.settings.stored)
        let watched: @Sendable (String) -> Bool = { options.episodes.watches($0) }
        var entry = Entry(generation: generation, study: nil, problems: [])
        let manifest = collected.folder.manifest.path
        if FileManager.default.fileExists(atPath: manifest), try CSVRecords.read(path: manifest).rows.count > 0 {
            let rows = try StudyManifest(path: manifest)
            // Exports name recordings as the study folder does, never by a path of the server's.
            let prefix = collected.folder.url.path + "/"
            func relative(_ path: String?) -> String? {
                path.map {
                    $0.hasPrefix(prefix)
                        ? String($0.dropFirst(prefix.count)) : URL(fileURLWithPath: $0).lastPathComponent
                }
            }
            entry.problems = rows.problems.map { problem in
                var problem = problem
                problem.recording = relative(problem.recording)
                problem.message = problem.message.replacingOccurrences(of: prefix, with: "")
                return problem
            }
            var settings = StudySettings.standard
            settings.title = collected.name
            let series = CollectionFolder.series(
                of: rows, settings: settings, watched: watched, minimumShare: collected.settings.fieldwork.minimumShare)
            entry.study = Study(
                participants: series.map { series in
                    var series = series
                    series.row.recording = relative(series.row.recording) ?? series.row.recording
                    series.exclusion = series.exclusion?.replacingOccurrences(of: prefix, with: "")
                    series.notes = series.notes.map { $0.replacingOccurrences(of: prefix, with: "") }
                    return series
                }, settings: settings)
        }
        entries.withLock { $0[collected.name] = entry }
        return entry
    }
}
