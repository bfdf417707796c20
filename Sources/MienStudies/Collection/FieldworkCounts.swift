import Foundation
import Mien

/// People who never became participants, counted for the dashboard.
///
/// Those who declined consent and those the study turned away because it was full. Counts only, by the group the link carried: nobody who did not agree
/// has anything stored about them (`fieldwork.json` in the study folder).
package struct FieldworkCounts: Sendable, Codable, Equatable {
    /// Declines by the link's group (`""`: none given).
    package var declined: [String: Int] = [:]
    /// Consents refused because the study had every participant it may take.
    package var turnedAwayFull = 0
    /// Consents refused because the group the link gave had reached its target (`targetsClose`), by group.
    package var turnedAwayGroupFull: [String: Int] = [:]
    /// Participant IDs whose data was erased, each as a digest of the study's name and the ID (the ID itself is
    /// not kept): such an ID cannot take part again, so one ID is never given a second completion code.
    package var erasedIDs: Set<String> = []
    /// Consents whose link gave a declared attribute a value the study does not declare (the value dropped), by
    /// attribute.
    package var attributesDropped: [String: Int] = [:]

    package init() {}

    private enum CodingKeys: String, CodingKey {
        case declined, turnedAwayFull, turnedAwayGroupFull, erasedIDs, attributesDropped
    }

    // Written before erasures were remembered: no `erasedIDs` (nor `turnedAwayGroupFull`, before targets closed groups).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        declined = try container.decode([String: Int].self, forKey: .declined)
        turnedAwayFull = try container.decode(Int.self, forKey: .turnedAwayFull)
        erasedIDs = try container.decodeIfPresent(Set<String>.self, forKey: .erasedIDs) ?? []
        turnedAwayGroupFull = try container.decodeIfPresent([String: Int].self, forKey: .turnedAwayGroupFull) ?? [:]
        attributesDropped = try container.decodeIfPresent([String: Int].self, forKey: .attributesDropped) ?? [:]
    }

    // Sorted, and left out while there is none (a study's file stays as it was until its first erasure or group full).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(declined, forKey: .declined)
        try container.encode(turnedAwayFull, forKey: .turnedAwayFull)
        if !turnedAwayGroupFull.isEmpty { try container.encode(turnedAwayGroupFull, forKey: .turnedAwayGroupFull) }
        if !erasedIDs.isEmpty { try container.encode(erasedIDs.sorted(), forKey: .erasedIDs) }
        if !attributesDropped.isEmpty { try container.encode(attributesDropped, forKey: .attributesDropped) }
    }

    /// The digest under which an erased participant ID of `study` is remembered.
    package static func erasedDigest(study: String, participant: String) -> String {
        ModelStore.sha256(Data("mien erased participant\n\(study)\n\(participant)".utf8))
    }

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
