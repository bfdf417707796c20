import Foundation
import Mien

/// Where a collected study's record is when it is not its folder: `record.json`, written in the folder by
/// `mien study init --store` and by every server that serves the study from PostgreSQL.
///
/// The servers of a fleet each write their own participants' result files into the folder they share (or their
/// own copies), and a participant who came back through another server has files in two places; the database
/// holds every attempt. So the folder is not the record and can disagree with it: `mien study` on such a folder
/// refuses, saying how to read the database instead. No password is written (the database's address only).
package struct StudyRecord: Codable, Sendable, Equatable {
    /// `postgresql`.
    package var store: String
    /// The database's address, its password shown as `***`.
    package var database: String
    /// The study's name in the database.
    package var study: String

    package init(store: String = "postgresql", database: String, study: String) {
        self.store = store
        self.database = database
        self.study = study
    }

    /// The record `folder` names, if any.
    /// - Throws: `.corruptData` naming the file when it cannot be read.
    package static func read(_ folder: CollectionFolder) throws -> StudyRecord? {
        guard let data = FileManager.default.contents(atPath: folder.record.path) else { return nil }
        do {
            return try JSONDecoder().decode(StudyRecord.self, from: data)
        } catch {
            throw MienError(.corruptData, "it is not a study's record note (\(error))", input: folder.record.path)
        }
    }

    /// Writes the note into `folder` unless it already says the same.
    /// - Throws: `MienError` naming the file when it cannot be written.
    package func write(to folder: CollectionFolder) throws {
        // A note that cannot be read is written again (it is this writer's own file), not a failure to report.
        if (try? Self.read(folder)) == self { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try CollectionFolder.writeAtomically(try encoder.encode(self), to: folder.record.path)
    }

    /// Why `mien study` does not read `folder` as it is, and what reads the record.
    package func refusal(folder: String) -> String {
        """
        \(folder) is a study kept in PostgreSQL (\(database), study \(study); its record.json says so): the servers \
        write their own participants' files into the folder, so it is not the record and can disagree with the \
        database. Aggregate from the database: mien study \(study) --store-file URL-FILE --output DIR (or \
        MIEN_STUDIES_URL), or write the folder's layout from it first: mien study export \(study) NEW-DIR \
        --store-file URL-FILE, then mien study NEW-DIR
        """
    }
}
