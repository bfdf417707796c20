package import Foundation
import Mien

/// A norms store's content: the stimuli added to it (`NormEntry`), with their format and figure set.
///
/// The same value in a file (`NormsFile`) or a database; decisions (add, remove) are made on it, in a
/// transaction of the store.
package struct NormSet: Sendable, Codable, Equatable {
    /// What a norms store says it is.
    package static let formatName = "mien-norms"
    /// The store format this Mien writes; a store of a later one is refused (its entries may mean other things).
    package static let currentVersion = 1

    package var format: String
    package var version: Int
    package var figureSet: NormFigures.FigureSet
    /// In the order they were added.
    package var entries: [NormEntry]

    /// A store with nothing in it yet, of this Mien's format.
    package init() {
        format = Self.formatName
        version = Self.currentVersion
        figureSet = .current
        entries = []
    }

    /// The store written as `data` (a norms file's bytes, or a database's document).
    /// - Throws: `.corruptData` naming `source` for what is not a norms store, `.invalidArgument` for one of a newer
    ///   format or another figure set, saying what differs.
    package static func decode(_ data: Data, source: String) throws -> NormSet {
        struct Header: Decodable {
            var format: String?
            var version: Int?
            var figureSet: NormFigures.FigureSet?
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data)
        } catch {
            throw MienError(.corruptData, "is not a norms store (not JSON of one)", input: source)
        }
        guard header.format == formatName, let version = header.version else {
            throw MienError(.corruptData, "is not a norms store (no \"format\": \"\(formatName)\")", input: source)
        }
        guard version <= currentVersion else {
            throw MienError(
                .invalidArgument,
                "is a norms store of format \(version), written by a newer Mien; this one reads format \(currentVersion) (use the newer Mien, or a store of its own)",
                input: source)
        }
        if let figures = header.figureSet, figures != NormFigures.FigureSet.current {
            throw MienError(
                .invalidArgument,
                "holds figures of another metric set (\(NormFigures.FigureSet.current.differences(fromStore: figures).joined(separator: "; "))); its stimuli cannot be compared with this Mien's (start a store of its own)",
                input: source)
        }
        do {
            return try JSONDecoder().decode(NormSet.self, from: data)
        } catch {
            throw MienError(.corruptData, "is a damaged norms store: \(error)", input: source)
        }
    }

    /// The store as written: sorted keys, one entry per line's worth of indentation, a final newline.
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// Adds `entry`.
    /// - Throws: `.invalidArgument` when an entry has its ID, or holds the same stimulus and panel (its fingerprint).
    package mutating func add(_ entry: NormEntry) throws {
        if let same = entries.first(where: { $0.fingerprint == entry.fingerprint }) {
            throw MienError(
                .invalidArgument,
                "stimulus \(entry.stimulus) of this study is already in the norm as \(same.id) (added \(same.added)): a stimulus counts once (mien norms remove \(same.id), then add it again)"
            )
        }
        if let same = entries.first(where: { $0.id == entry.id }) {
            throw MienError(
                .invalidArgument,
                "the norm already holds \(same.id) (added \(same.added), another panel): give this study another name (--name)"
            )
        }
        entries.append(entry)
    }

    /// Removes the entry with `id` and returns it.
    /// - Throws: `.notFound` naming the ID when there is none.
    package mutating func remove(_ id: String) throws -> NormEntry {
        guard let index = entries.firstIndex(where: { $0.id == id }) else {
            throw MienError(.notFound, "the norm holds no stimulus \(id) (mien norms list shows them)")
        }
        return entries.remove(at: index)
    }
}
