package import Foundation
import Logging
import Mien
import MienCore
package import MienStudies
import PostgresNIO

/// A collected study as its database holds it: what `mien study --store` aggregates and `mien study export` writes
/// out as the study folder's layout.
///
/// The participants' result files are made from the stored JSON Lines with the writers a stimulus socket uses
/// (the JSON Lines byte for byte, the CSV and events from those lines, the summary as the socket wrote it), so
/// `mien study` on the export reads what `mien study --store` reads from the database.
package final class StudyArchive: Sendable {
    package let study: String
    package let settings: CollectionSettings
    /// Every participant's session, in the order of their numbers.
    package let sessions: [ParticipantSession]
    package let counts: FieldworkCounts
    private let database: StudyDatabase

    private init(
        study: String, settings: CollectionSettings, sessions: [ParticipantSession], counts: FieldworkCounts,
        database: StudyDatabase
    ) {
        self.study = study
        self.settings = settings
        self.sessions = sessions
        self.counts = counts
        self.database = database
    }

    /// The database at `url` (`postgres://…`), as `mien serve --store` names it.
    package var source: String { "\(database.url)" }

    /// Reads `study`'s settings, sessions and counts.
    /// - Throws: `MienError` naming the URL (without its password) when the database cannot be reached or holds
    ///   no study of that name.
    package static func open(url: String, study: String) async throws -> StudyArchive {
        let database = try await StudyDatabase.open(try DatabaseURL(url), logger: CollectedStudy.logger)
        do {
            let (settings, counts, sessions) = try await database.transaction(within: .seconds(60)) {
                [logger = database.logger] connection in
                var row: (String, String)?
                for try await found in try await connection.query(
                    "SELECT settings::text, counts::text FROM mien_studies WHERE name = \(study)", logger: logger
                ).decode((String, String).self) {
                    row = found
                }
                guard let row else {
                    throw MienError(.notFound, "the database holds no study of this name", input: "study \(study)")
                }
                var sessions: [String] = []
                for try await text in try await connection.query(
                    "SELECT session::text FROM mien_sessions WHERE study = \(study) ORDER BY number", logger: logger
                ).decode(String.self) {
                    sessions.append(text)
                }
                return (row.0, row.1, sessions)
            }
            let decoder = JSONDecoder()
            return StudyArchive(
                study: study, settings: try decoder.decode(CollectionSettings.self, from: Data(settings.utf8)),
                sessions: try sessions.map { try decoder.decode(ParticipantSession.self, from: Data($0.utf8)) },
                // A study no change was made to yet holds the column's default, no counts.
                counts: counts == "{}"
                    ? FieldworkCounts() : try decoder.decode(FieldworkCounts.self, from: Data(counts.utf8)),
                database: database)
        } catch {
            await database.retire()
            if let error = error as? MienError { throw MienError(error.code, error.message, input: "\(database.url)") }
            throw MienError(.corruptData, "the study \(study) cannot be read: \(error)", input: "\(database.url)")
        }
    }

    /// Closes the connections.
    package func close() async { await database.retire() }

    /// The manifest `manifest.csv` would hold (recordings named relative to the study, as the folder's are).
    /// - Throws: `.invalidArgument` when nobody has been measured yet.
    package func manifest() throws -> StudyManifest {
        guard let manifest = try results.manifest() else {
            throw MienError(.invalidArgument, "no participant has been measured yet", input: "study \(study)")
        }
        return manifest
    }

    private var results: StoredResults {
        StoredResults(database: database, study: study, sessions: sessions, settings: settings)
    }

    /// A manifest row's results, read from the database (nil: none kept).
    /// - Throws: `StudyStoreFailure` when they cannot be read.
    package func content(ofRecording recording: String) async throws -> StudyRecordingReader.Content? {
        try await results.content(ofRecording: recording)
    }

    /// Writes the study folder's layout into `url` (a new or empty folder).
    ///
    /// Settings, consent, the stimuli, the sessions, every attempt's result files, the manifests and the fieldwork
    /// counts: a study folder `mien serve --studies` can serve again. Webcam recordings are not in the database;
    /// they stay in the folder the servers share.
    /// - Returns: the attempts written.
    /// - Throws: `MienError` naming the folder or the database.
    package func export(to url: URL) async throws -> Int {
        let folder = CollectionFolder(url)
        try await BlockingWork.run { [self] in
            let manager = FileManager.default
            if manager.fileExists(atPath: url.path) {
                let found = try? manager.contentsOfDirectory(atPath: url.path)
                guard found?.isEmpty == true else {
                    throw MienError(.invalidArgument, "is not an empty folder; export into a new one", input: url.path)
                }
            }
            do {
                try manager.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw MienError(.ioFailure, "cannot be created", input: url.path, cause: "\(error)")
            }
            try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
            try CollectionFolder.writeAtomically(
                Data(settings.consent.utf8), to: url.appendingPathComponent("consent.md").path)
            try CollectionFolder.writeAtomically(
                Data(CollectionDisclosure.storedNote(settings).utf8), to: url.appendingPathComponent("STORED.md").path)
            try counts.write(to: folder)
            for session in sessions { try folder.write(session) }
            if let questions = settings.questions {
                try CollectionFolder.writeAtomically(
                    Data(AnswerTable.csv(sessions, questions: questions).utf8),
                    to: url.appendingPathComponent("answers.csv").path)
            }
        }
        try await database.writeStimuli(study: study, into: folder)
        let byParticipant = Dictionary(uniqueKeysWithValues: sessions.map { ($0.participant, $0) })
        var written = 0
        for key in try await database.resultKeys(study: study) {
            guard let session = byParticipant[key.participant] else { continue }  // erased since the sessions were read
            let (lines, end) = try await database.results(key)
            let name =
                key.attempt < 0
                ? "\(key.stimulus).unrecovered\(-key.attempt)"
                : key.attempt == StoredResults.currentAttempt(session, key.stimulus)
                    ? key.stimulus : "\(key.stimulus).attempt\(key.attempt)"
            let files = folder.files(participant: key.participant, stimulus: name)
            let source = "\(self.source) study \(study) \(key)"
            try await BlockingWork.run {
                try Self.write(lines, end: end, to: files, input: key.stimulus, source: source)
            }
            written += 1
        }
        try await BlockingWork.run { [self] in try folder.writeManifests(sessions, settings: settings) }
        return written
    }

    /// One attempt's files: the JSON Lines as kept, the CSV and events made from them by their writers, the
    /// summary as kept (made from the lines, as a recovered attempt's is, when the attempt never ended).
    private static func write(
        _ lines: Data, end: ResultEnd?, to files: OutputFiles, input: String, source: String
    ) throws {
        guard let jsonl = files.jsonl, let csv = files.csv, let events = files.events, let summary = files.summary
        else { return }
        try CollectionFolder.writeAtomically(lines, to: jsonl)
        let table = try CSVWriter(path: csv)
        let episodes = try EventsCSVWriter(path: events, input: input)
        let made = end == nil ? SummaryWriter(path: summary, input: input) : nil
        let writers: [any ResultWriter] = [table, episodes] + (made.map { [$0] } ?? [])
        do {
            try JSONLinesReader.forEachResult(in: lines, source: source) { result in
                for writer in writers { try writer.write(result, frame: nil) }
            }
            let finished = try end.map { try JSONDecoder().decode([EpisodeEvent].self, from: $0.episodes) } ?? []
            for writer in writers { try writer.finishEpisodes(finished) }
            for writer in writers { try writer.finish(.stopped) }
        } catch {
            let failure = error as? MienError ?? MienError(.ioFailure, "\(error)", input: jsonl)
            for writer in writers { writer.fail(failure) }
            throw failure
        }
        if let end { try CollectionFolder.writeAtomically(end.summary, to: summary) }
    }
}
