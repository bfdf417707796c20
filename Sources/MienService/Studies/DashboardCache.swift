import Foundation
import Mien
import MienCore
import MienStudies

/// Each study's aggregation for the dashboard, recomputed only when a participant's data changed since.
final class DashboardCache: Sendable {
    /// The aggregated study and when it was made, or nil while nobody has been measured.
    struct Entry: Sendable {
        var generation: Int
        var study: Study?
        var problems: [StudyManifest.Problem]
        var made = ContinuousClock.now
    }
    private let entries = Locked<[String: Entry]>([:])
    /// Studies being aggregated from a database now: another request meanwhile gets the last aggregation.
    private let aggregating = Locked<Set<String>>([])

    /// How old a database study's aggregation may be before a change makes it again: each one reads every
    /// participant's results from the database, and several servers' changes move the generation many times a
    /// second in a burst (a fleet check's dashboard polled every second re-aggregated 40 participants each time,
    /// and a participant's socket waited behind it).
    static let databaseInterval = Duration.seconds(15)

    /// The last aggregation of `collected`, without making one: a database study's participants list shows the
    /// exclusions its study tables last found (aggregating for a list polled every few seconds would read every
    /// participant's results each time); a folder study's is made as `entry(of:)` makes it.
    func exclusionsEntry(of collected: CollectedStudy) async throws -> Entry? {
        guard collected.store.record(sessions: [], settings: collected.settings) != nil else {
            return try await entry(of: collected)
        }
        return entries.withLock { $0[collected.name] }
    }

    /// The study of `collected` now (aggregated again if its data changed).
    ///
    /// From its folder's manifest and files, or from its database (at most `databaseInterval` old): the files and
    /// the aggregation on `BlockingWork`'s threads, a database's results awaited recording by recording.
    /// - Throws: `MienError` when the manifest cannot be read.
    func entry(of collected: CollectedStudy) async throws -> Entry {
        let generation = collected.generation
        if let cached = entries.withLock({ $0[collected.name] }), cached.generation == generation { return cached }
        let options = try CollectionAnalysis.options(collected.settings.stored)
        let watched: @Sendable (String) -> Bool = { options.episodes.watches($0) }
        var entry = Entry(generation: generation, study: nil, problems: [])
        // The store's record (a database's: every server's participants, whichever folder it writes).
        if let results = collected.store.record(sessions: collected.sessions, settings: collected.settings) {
            let cached = entries.withLock { $0[collected.name] }
            let busy = aggregating.withLock { !$0.insert(collected.name).inserted }
            if let cached, busy || ContinuousClock.now - cached.made < Self.databaseInterval {
                if !busy { aggregating.withLock { _ = $0.remove(collected.name) } }
                return cached
            }
            defer { if !busy { aggregating.withLock { _ = $0.remove(collected.name) } } }
            if let manifest = try results.manifest() {
                var settings = StudySettings.standard
                settings.title = collected.name
                let series = await CollectionFolder.series(
                    of: manifest, settings: settings, watched: watched,
                    minimumShare: collected.settings.fieldwork.minimumShare, viewingRules: .standard
                ) { recording in try await results.content(ofRecording: recording) }
                let (sessions, questions) = (collected.sessions, collected.settings.questions)
                entry.study = await BlockingWork.run { [settings] in
                    var study = Study(participants: series, settings: settings)
                    // The verdict study.html opens with (issue 98), as `mien study` makes it.
                    study.kpis = StudyKPIs.rows(study, sessions: sessions, questions: questions)
                    return study
                }
            }
            entries.withLock { $0[collected.name] = entry }
            return entry
        }
        let folderEntry = try await BlockingWork.run { [entry] in
            try Self.folderEntry(entry, of: collected, watched: watched)
        }
        entries.withLock { $0[collected.name] = folderEntry }
        return folderEntry
    }

    /// A folder study's entry, from its manifest and files (blocking).
    private static func folderEntry(
        _ entry: Entry, of collected: CollectedStudy, watched: @escaping @Sendable (String) -> Bool
    ) throws -> Entry {
        var entry = entry
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
                of: rows, settings: settings, watched: watched, minimumShare: collected.settings.fieldwork.minimumShare,
                viewingRules: .standard)
            entry.study = Study(
                participants: series.map { series in
                    var series = series
                    series.row.recording = relative(series.row.recording) ?? series.row.recording
                    series.exclusion = series.exclusion?.replacingOccurrences(of: prefix, with: "")
                    series.notes = series.notes.map { $0.replacingOccurrences(of: prefix, with: "") }
                    return series
                }, settings: settings)
            if let study = entry.study {
                entry.study?.kpis = StudyKPIs.rows(
                    study, sessions: collected.sessions, questions: collected.settings.questions)
            }
        }
        return entry
    }
}
