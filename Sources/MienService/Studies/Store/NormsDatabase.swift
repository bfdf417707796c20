import Foundation
import Logging
import Mien
package import MienStudies
import PostgresNIO

/// Norms kept in a study database (`mien norms … --store URL`, `mien study --norms NAME --store URL`): each norm a
/// row of `mien_norms` holding the document a norms file would (`NormSet`), so both stores decide the same way.
package enum NormsDatabase {
    /// The norm `name` at `url`; an empty one when the database holds none of that name.
    /// - Throws: `MienError` naming the URL (without its password) when the database cannot be reached, and what
    ///   `NormSet.decode` throws for a norm of a newer format or another figure set.
    package static func read(url: String, name: String) async throws -> NormSet {
        try await using(url) { database in
            let text = try await database.transaction { [logger = database.logger] connection in
                var found: String?
                for try await text in try await connection.query(
                    "SELECT document::text FROM mien_norms WHERE name = \(name)", logger: logger
                ).decode(String.self) {
                    found = text
                }
                return found
            }
            guard let text else { return NormSet() }
            return try NormSet.decode(Data(text.utf8), source: source(database, name))
        }
    }

    /// Runs `body` on the norm `name` in one transaction that holds its row, and keeps what it leaves (unless it
    /// throws: then nothing changes); a norm not there yet is made.
    /// - Throws: what `body` throws; what `read` throws.
    package static func transact<Result: Sendable>(
        url: String, name: String, _ body: @escaping @Sendable (inout NormSet) throws -> Result
    ) async throws -> Result {
        try await using(url) { database in
            let empty = String(decoding: try NormSet().encoded(), as: UTF8.self)
            let described = source(database, name)
            return try await database.transaction(within: .seconds(60)) { [logger = database.logger] connection in
                try await connection.query(
                    "INSERT INTO mien_norms (name, document) VALUES (\(name), \(empty)::jsonb) ON CONFLICT (name) DO NOTHING",
                    logger: logger)
                var text = ""
                for try await found in try await connection.query(
                    "SELECT document::text FROM mien_norms WHERE name = \(name) FOR UPDATE", logger: logger
                ).decode(String.self) {
                    text = found
                }
                var set = try NormSet.decode(Data(text.utf8), source: described)
                let result = try body(&set)
                let document = String(decoding: try set.encoded(), as: UTF8.self)
                try await connection.query(
                    "UPDATE mien_norms SET document = \(document)::jsonb, updated = now() WHERE name = \(name)",
                    logger: logger)
                return result
            }
        }
    }

    /// The norm as messages name it: the database (without its password) and the norm's name.
    private static func source(_ database: StudyDatabase, _ name: String) -> String {
        "norm \(name) in \(database.url)"
    }

    /// Opens the database, runs `work`, and closes it whatever happened.
    private static func using<T: Sendable>(_ url: String, _ work: (StudyDatabase) async throws -> T) async throws -> T {
        let database = try await StudyDatabase.open(try DatabaseURL(url), logger: CollectedStudy.logger)
        do {
            let result = try await work(database)
            await database.retire()
            return result
        } catch {
            await database.retire()
            throw error
        }
    }
}
