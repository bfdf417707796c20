import Foundation
import Mien
import MienCore
import MienStudies

/// Each study's aggregation for the dashboard, recomputed only when a participant's data changed since.
final class DashboardCache: Sendable {
    /// The aggregated study and when it was made, or nil while nobody has been measured.
    struct Entry: Sendable {
        var generation: Int
        /// The report `mien study` writes for the same data and the study's own settings (`CollectedReport`).
        var report: CollectedReport?
        var problems: [StudyManifest.Problem]
        var made = ContinuousClock.now
        var study: Study? { report?.study }
    }
    private let entries = Locked<[String: Entry]>([:])
    /// Each folder study's stimulus pictures (they change only with the stimuli, which never change in fieldwork).
    private let pictures = Locked<[String: ([String: [StimulusStrip.Picture]], [String])]>([:])
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
        var entry = Entry(generation: generation, report: nil, problems: [])
        let settings = try CollectedReport.settings(of: collected.settings, name: collected.name)
        let sessions = collected.sessions
        var inputs = CollectedReport.Inputs(
            settings: settings, rules: .standard, questions: collected.settings.questions, sessions: { sessions })
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
                let series = await CollectionFolder.series(
                    of: manifest, settings: settings, watched: watched,
                    minimumShare: collected.settings.fieldwork.minimumShare, viewingRules: inputs.rules
                ) { recording in try await results.content(ofRecording: recording) }
                // As `mien study --store` makes it (no stimulus pictures: a database's stimuli are not read).
                entry.report = try await BlockingWork.run { [inputs] in try CollectedReport.make(series, inputs) }
            }
            entries.withLock { $0[collected.name] = entry }
            return entry
        }
        (inputs.pictures, inputs.pictureNotes) = await pictures(of: collected)
        // Exports name recordings as the study folder does, never by a path of the server's.
        inputs.folder = collected.folder.url
        let folderEntry = try await BlockingWork.run { [entry, inputs] in
            try Self.folderEntry(entry, of: collected, inputs: inputs, watched: watched)
        }
        entries.withLock { $0[collected.name] = folderEntry }
        return folderEntry
    }

    /// A folder study's stimulus pictures and the notes of those that could not be made, as `mien study` reads them.
    private func pictures(of collected: CollectedStudy) async -> ([String: [StimulusStrip.Picture]], [String]) {
        if let made = pictures.withLock({ $0[collected.name] }) { return made }
        let made = await CollectedReport.pictures(of: collected.settings.stimuli, in: collected.folder)
        pictures.withLock { $0[collected.name] = made }
        return made
    }

    /// A folder study's entry, from its manifest and files (blocking).
    private static func folderEntry(
        _ entry: Entry, of collected: CollectedStudy, inputs: CollectedReport.Inputs,
        watched: @escaping @Sendable (String) -> Bool
    ) throws -> Entry {
        var entry = entry
        let manifest = collected.folder.manifest.path
        if FileManager.default.fileExists(atPath: manifest), try CSVRecords.read(path: manifest).rows.count > 0 {
            let rows = try StudyManifest(path: manifest)
            entry.problems = CollectedReport.relative(rows, to: collected.folder.url).problems
            let series = CollectionFolder.series(
                of: rows, settings: inputs.settings, watched: watched,
                minimumShare: collected.settings.fieldwork.minimumShare, viewingRules: inputs.rules)
            entry.report = try CollectedReport.make(series, inputs)
        }
        return entry
    }
}
