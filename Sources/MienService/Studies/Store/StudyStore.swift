import Foundation
import Mien
import MienStudies

/// Where a study's shared state lives: its folder (one server, the embedded default) or a database that several
/// servers share.
///
/// Every change goes through `transact`: the store gives the ledger as it stands, the change decides on it (and may
/// refuse by throwing), and the store keeps what changed before it returns, as one transaction. A server never
/// decides on a ledger another server may have changed since.
protocol StudyStore: Sendable {
    /// The store as it is named in logs and errors (a database's URL without its password).
    var description: String { get }

    /// This server, as the ledger's socket holders name it.
    var server: String { get }

    /// Whether participants' result files are written in the study's folder too: always for a folder (they are its
    /// results); for a database, unless this server's folder is a working copy (a server given only the URL), where
    /// an erasure through another server could not reach them.
    var keepsFiles: Bool { get }

    /// The per-frame results the store is the record of, for an aggregation (a dashboard): a database's, every
    /// server's participants whichever folder each writes; nil for a folder, whose manifest and files are read.
    func record(sessions: [ParticipantSession], settings: CollectionSettings) -> StoredResults?

    /// The ledger as this server last saw it (reads for pages and dashboards; a decision goes through `transact`).
    func current() -> StudyLedger

    /// Brings `current()` up to what other servers changed (nothing to do for a store only this server writes).
    /// - Throws: `StudyStoreFailure` when the store cannot be read.
    func refresh() async throws

    /// Runs `change` on the ledger as it stands and keeps what it changed, all or nothing.
    /// - Returns: what `change` returned.
    /// - Throws: what `change` throws (nothing kept), or `StudyStoreFailure` when the change cannot be kept.
    func transact<Result: Sendable>(_ change: @escaping @Sendable (inout StudyLedger) throws -> Result) async throws
        -> Result

    /// Runs `change` on the ledger as it stands and keeps it in this server's view even when the store cannot keep
    /// it: a change that takes something away (left, not saved), so the server never acts on a state the
    /// participant no longer has.
    /// - Returns: what `change` returned, and why the store could not keep it (for the log), if it could not.
    func apply<Result: Sendable>(_ change: @escaping @Sendable (inout StudyLedger) -> Result) async
        -> (result: Result, failure: StudyStoreFailure?)

    /// Participants whose sessions left this server's view since the last call (erased, possibly through another
    /// server), so the files this server holds of them are removed too; nothing for a folder only this server
    /// writes (its own erasure removed them).
    func takeErased() -> Set<String>

    /// Where a stimulus attempt's per-frame results go besides the participant's files: nil for a folder (the
    /// files are its results), an upload to the database for a database, which starts the attempt with no rows
    /// (rows left under its number by an attempt the folder never set aside are set aside, not deleted).
    /// - Throws: `StudyStoreFailure` when the database cannot be reached.
    func results(participant: String, stimulus: String, attempt: Int) async throws -> ResultUpload?

    /// The per-frame results (JSON Lines) the store holds of a stimulus attempt: nil for a folder (a server
    /// recovers its own files), the rows kept so far for a database (a killed server's cut attempt, which it never
    /// recorded).
    /// - Throws: `StudyStoreFailure` when the database cannot be read.
    func keptResults(participant: String, stimulus: String, attempt: Int) async throws -> Data?
}

/// A change the store could not keep (a folder that cannot be written, a database that cannot be reached), with the
/// cause for the log; a participant is told only that the server cannot save now.
struct StudyStoreFailure: Error, CustomStringConvertible {
    var description: String
    /// The database library's own error, when there is one: what `StudyDatabase.explain` names at start-up.
    var underlying: (any Error)? = nil
}
