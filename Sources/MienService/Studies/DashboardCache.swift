import Foundation
import Mien
import Synchronization

/// Each study's aggregation for the dashboard, recomputed only when a participant's data changed since.
final class DashboardCache: Sendable {
    /// The aggregated study and when it was made, or nil while nobody has been measured.
    struct Entry: Sendable {
        var generation: Int
        var study: Study?
        var problems: [StudyManifest.Problem]
    }
    private let entries = Mutex<[String: Entry]>([:])

    /// The study of `collected` now (aggregated again if its data changed).
    /// - Throws: `MienError` when the manifest cannot be read.
    func entry(of collected: CollectedStudy) throws -> Entry {
        let generation = collected.generation
        if let cached = entries.withLock({ $0[collected.name] }), cached.generation == generation { return cached }
        let options = try CollectionAnalysis.options
        let watched: @Sendable (String) -> Bool = { options.episodes.watches($0) }
        var entry = Entry(generation: generation, study: nil, problems: [])
        let manifest = collected.folder.manifest.path
        if FileManager.default.fileExists(atPath: manifest), try CSVRecords.read(path: manifest).rows.count > 0 {
            let rows = try StudyManifest(path: manifest)
            entry.problems = rows.problems
            entry.study = Study(
                participants: CollectionFolder.series(of: rows, settings: StudySettings.standard, watched: watched),
                settings: StudySettings.standard)
        }
        entries.withLock { $0[collected.name] = entry }
        return entry
    }
}
