import Foundation
import Logging
import Mien
import MienCore
import MienStudies

/// A study's shared state in its folder: one `session.json` per participant and `fieldwork.json`, each written
/// whole and renamed into place, one change at a time on the store's lane (one server owns the folder), and the
/// manifests `mien study` reads after each change.
final class FolderStudyStore: StudyStore {
    let folder: CollectionFolder
    let settings: CollectionSettings
    /// The ledger as written (or kept in view); replaced whole by the lane's work, read at any time.
    private let view: Locked<StudyLedger>
    /// Where a change is decided and written, one at a time, off the cooperative pool: a serial queue, as GRDB's
    /// writer, rather than a lock held over the disk.
    private let writer = BlockingWork.Lane(label: "mien.study.folder")
    private let logger: Logger

    /// - Parameter ledger: the ledger read from the folder at start.
    init(folder: CollectionFolder, settings: CollectionSettings, ledger: StudyLedger, logger: Logger) {
        self.folder = folder
        self.settings = settings
        var ledger = ledger
        ledger.settle()
        view = Locked(ledger)
        self.logger = logger
    }

    var description: String { folder.url.path }

    /// One server owns a folder.
    var server: String { "local" }

    /// The files are the folder's results.
    var keepsFiles: Bool { true }

    func record(sessions: [ParticipantSession], settings: CollectionSettings) -> StoredResults? { nil }

    func current() -> StudyLedger { view.withLock { $0 } }

    func refresh() {}

    // The change and its writes run on the lane (a write waits for the disk).

    func transact<Result: Sendable>(_ change: @escaping @Sendable (inout StudyLedger) throws -> Result) async throws
        -> Result
    {
        try await writer.run {
            let (result, failure) = try self.decideAndWrite(keepOnFailure: false, change)
            if let failure { throw failure }
            return result
        }
    }

    func apply<Result: Sendable>(_ change: @escaping @Sendable (inout StudyLedger) -> Result) async
        -> (result: Result, failure: StudyStoreFailure?)
    {
        await writer.run { self.decideAndWrite(keepOnFailure: true, change) }
    }

    func takeErased() -> Set<String> { [] }

    /// The participant's files are the study's results.
    func results(participant: String, stimulus: String, attempt: Int) async throws -> ResultUpload? { nil }

    func keptResults(participant: String, stimulus: String, attempt: Int) async throws -> Data? { nil }

    /// Decides and writes one change (on the lane, which orders the changes), then the manifests if it changed
    /// what they list.
    ///
    /// A write that fails is returned, the change kept in this server's view only with `keepOnFailure`. Readers
    /// (`current()`) never wait for the disk: the view is replaced once the change is written.
    private func decideAndWrite<Result: Sendable>(
        keepOnFailure: Bool, _ change: (inout StudyLedger) throws -> Result
    ) rethrows -> (Result, StudyStoreFailure?) {
        let (result, listed, failure) = try decide(keepOnFailure: keepOnFailure, change)
        if listed { writeManifests() }
        return (result, failure)
    }

    /// `decideAndWrite` but the manifests; `listed`: whether the change touched a measured session.
    private func decide<Result: Sendable>(
        keepOnFailure: Bool, _ change: (inout StudyLedger) throws -> Result
    ) rethrows -> (result: Result, listed: Bool, failure: StudyStoreFailure?) {
        let old = current()
        var draft = old
        let result = try change(&draft)
        guard draft.differs(from: old) else { return (result, false, nil) }
        draft.generation += 1
        // The manifests list measured stimuli only: a change to sessions with none (a consent, a framing
        // check) leaves them as they are, and rewriting them from every session made a consent's cost grow
        // with the study (192 ms at 1,000 sessions).
        let (written, removed) = draft.changes(from: old)
        let measured =
            written.contains(where: Self.measured)
            || (written.map(\.participant) + removed).contains { old.sessions[$0].map(Self.measured) ?? false }
        do {
            try write(draft, over: old)
        } catch {
            draft.settle()
            if keepOnFailure { view.withLock { $0 = draft } }
            return (result, keepOnFailure && measured, StudyStoreFailure(description: "\(error)"))
        }
        draft.settle()
        view.withLock { $0 = draft }
        return (result, measured, nil)
    }

    /// Writes what changed: sessions first (a participant is told only what is written), then the counts; a
    /// participant removed (erasure, an expired consent) loses their folder.
    private func write(_ new: StudyLedger, over old: StudyLedger) throws {
        let (written, removed) = new.changes(from: old)
        for session in written { try folder.write(session) }
        if new.counts != old.counts { try new.counts.write(to: folder) }
        for id in removed where FileManager.default.fileExists(atPath: folder.participant(id).path) {
            do {
                try FileManager.default.removeItem(at: folder.participant(id))
            } catch {
                throw MienError(
                    .ioFailure, "cannot delete the participant's files: \(error)", input: "participant \(id)")
            }
        }
    }

    /// Whether a session has a row in the manifests (a stimulus with frames).
    private static func measured(_ session: ParticipantSession) -> Bool {
        session.stimuli.values.contains { $0.frames > 0 }
    }

    /// `manifest.csv` (and `recorded.csv`) from every session, on the lane after the change that asked for them; a
    /// failure is logged (they are rebuilt at the next change and at start).
    private func writeManifests() {
        do {
            try folder.writeManifests(Array(current().sessions.values), settings: settings)
        } catch {
            logger.error("study \(folder.url.lastPathComponent): the manifest cannot be saved: \(error)")
        }
    }
}
