import Foundation

/// People who never became participants, counted for the dashboard.
///
/// Those who declined consent and those the study turned away because it was full. Counts only, by the group the link carried: nobody who did not agree
/// has anything stored about them (`fieldwork.json` in the study folder).
package struct FieldworkCounts: Sendable, Codable, Equatable {
    /// Declines by the link's group (`""`: none given).
    package var declined: [String: Int] = [:]
    /// Consents refused because the study had every participant it may take.
    package var turnedAwayFull = 0

    package init() {}

    /// The counts kept in `folder`, or none yet.
    /// - Throws: `.corruptData` naming the file when it cannot be read.
    package static func read(_ folder: CollectionFolder) throws -> FieldworkCounts {
        guard let data = FileManager.default.contents(atPath: folder.fieldwork.path) else { return FieldworkCounts() }
        do {
            return try JSONDecoder().decode(FieldworkCounts.self, from: data)
        } catch {
            throw MienError(.corruptData, "the fieldwork counts cannot be read: \(error)", input: folder.fieldwork.path)
        }
    }

    /// Writes the counts into `folder`, atomically.
    /// - Throws: `.ioFailure` naming the file.
    package func write(to folder: CollectionFolder) throws {
        try CollectionFolder.writeAtomically(try CollectionFolder.encoder.encode(self), to: folder.fieldwork.path)
    }
}
