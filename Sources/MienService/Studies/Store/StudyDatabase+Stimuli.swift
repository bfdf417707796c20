import Foundation
import Logging
import Mien
import MienCore
import MienStudies
import PostgresNIO

/// A study's stimuli in the database, so that a server given only the URL (`mien serve --studies postgres://…`)
/// can serve every study in it, and an export is a whole study folder.
extension StudyDatabase {
    /// Keeps the stimuli of a study whose folder this server serves, each checked against its SHA-256 (the files
    /// the settings name), unless the database holds them already.
    /// - Throws: `StudyStoreFailure` when the database fails; `MienError` naming a file that cannot be read.
    func keepStimuli(study: String, settings: CollectionSettings, folder: CollectionFolder) async throws {
        let held = try await transaction { [logger] connection in
            var held: [String: String] = [:]
            for try await (file, digest) in try await connection.query(
                "SELECT file, sha256 FROM mien_stimuli WHERE study = \(study)", logger: logger
            ).decode((String, String).self) {
                held[file] = digest
            }
            return held
        }
        for stimulus in settings.stimuli where held[stimulus.file] != stimulus.sha256 {
            let path = folder.stimuli.appendingPathComponent(stimulus.file).path
            let data = try await BlockingWork.run { () throws -> Data in
                guard let data = FileManager.default.contents(atPath: path), ModelStore.sha256(data) == stimulus.sha256
                else {
                    throw MienError(.corruptData, "the stimulus is not the one the study's settings name", input: path)
                }
                return data
            }
            try await transaction(within: .seconds(120)) { [logger] connection in
                try await connection.query(
                    """
                    INSERT INTO mien_stimuli (study, file, sha256, bytes)
                    VALUES (\(study), \(stimulus.file), \(stimulus.sha256), \(data))
                    ON CONFLICT (study, file) DO UPDATE SET sha256 = excluded.sha256, bytes = excluded.bytes
                    """, logger: logger)
            }
            logger.info("study \(study): stimulus \(stimulus.file) kept in \(url) (\(data.count) bytes)")
        }
    }

    /// Writes a study's stimuli from the database into `folder`'s `stimuli/` (those it holds).
    /// - Returns: the files written.
    /// - Throws: `StudyStoreFailure` when the database fails; `MienError` naming a file that cannot be written.
    @discardableResult
    func writeStimuli(study: String, into folder: CollectionFolder) async throws -> [String] {
        let files = try await transaction(within: .seconds(120)) { [logger] connection in
            var files: [(String, Data)] = []
            for try await (file, bytes) in try await connection.query(
                "SELECT file, bytes FROM mien_stimuli WHERE study = \(study) ORDER BY file", logger: logger
            ).decode((String, Data).self) {
                files.append((file, bytes))
            }
            return files
        }
        try await BlockingWork.run {
            do {
                try FileManager.default.createDirectory(at: folder.stimuli, withIntermediateDirectories: true)
            } catch {
                throw MienError(.ioFailure, "cannot be created", input: folder.stimuli.path, cause: "\(error)")
            }
            // A name the settings check (`CollectionSettings.isName`-like files: no path), written as given.
            for (file, bytes) in files where !file.contains("/") && file != ".." {
                try CollectionFolder.writeAtomically(bytes, to: folder.stimuli.appendingPathComponent(file).path)
            }
        }
        return files.map(\.0)
    }

    /// Writes every study the database holds under `parent` as the study folders `mien study init` makes
    /// (settings, consent, stimuli), for a server given only the URL.
    /// - Returns: studies not written, with the reason (a `record` study keeps webcam recordings in its folder,
    ///   which a server's temporary copy would lose).
    /// - Throws: `StudyStoreFailure` when the database fails; `MienError` naming a file that cannot be written.
    func writeStudies(into parent: URL) async throws -> [String: String] {
        try await BlockingWork.run {
            do {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            } catch {
                throw MienError(.ioFailure, "the studies' working folder cannot be made", input: parent.path)
            }
        }
        var refused: [String: String] = [:]
        for (name, text) in try await studyRows(named: nil) where CollectionSettings.isName(name) {
            if let why = try await write(name, settings: text, into: parent, withRecordings: false) {
                refused[name] = why
            }
        }
        return refused
    }

    /// Writes the study `name` under `parent` as `writeStudies` does, when the database holds it: a study registered
    /// after this server started.
    /// - Parameter withRecordings: the folder is the study's (shared, or this server's own) rather than a working
    ///   copy, so a `record` study may be written too.
    /// - Returns: whether the database holds it.
    /// - Throws: `StudyStoreFailure` when the database fails; `MienError` naming a file that cannot be written, or
    ///   `.invalidArgument` saying why it cannot be served from here.
    func writeStudy(_ name: String, into parent: URL, withRecordings: Bool) async throws -> Bool {
        guard let (_, text) = try await studyRows(named: name).first else { return false }
        if let why = try await write(name, settings: text, into: parent, withRecordings: withRecordings) {
            throw MienError(.invalidArgument, why, input: "study \(name)")
        }
        return true
    }

    /// The studies' names and settings (JSON), one or all.
    private func studyRows(named name: String?) async throws -> [(String, String)] {
        try await transaction(within: .seconds(60)) { [logger] connection in
            var rows: [(String, String)] = []
            let query: PostgresQuery =
                if let name {
                    "SELECT name, settings::text FROM mien_studies WHERE name = \(name)"
                } else {
                    "SELECT name, settings::text FROM mien_studies ORDER BY name"
                }
            for try await row in try await connection.query(query, logger: logger).decode((String, String).self) {
                rows.append(row)
            }
            return rows
        }
    }

    /// Writes one study's folder; returns why it was not written, if it was not.
    private func write(_ name: String, settings text: String, into parent: URL, withRecordings: Bool) async throws
        -> String?
    {
        let settings: CollectionSettings
        do {
            settings = try JSONDecoder().decode(CollectionSettings.self, from: Data(text.utf8))
        } catch {
            return "its settings in the database cannot be read: \(error)"
        }
        if settings.record, !withRecordings {
            return "a study with record keeps webcam recordings in its folder: serve it with --studies DIR --store URL"
        }
        let folder = CollectionFolder(parent.appendingPathComponent(name))
        try await BlockingWork.run {
            do {
                try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
            } catch {
                throw MienError(.ioFailure, "the study's working folder cannot be made", input: folder.url.path)
            }
            try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
            try CollectionFolder.writeAtomically(
                Data(settings.consent.utf8), to: folder.url.appendingPathComponent("consent.md").path)
        }
        try await writeStimuli(study: name, into: folder)
        return nil
    }
}
