import Foundation
import Logging
import Mien
import MienCore
import MienStudies

/// Studies added while the server runs: a folder made under `--studies`, or a study `mien study init --store`
/// registered in the database after the servers started (issue 96 item 11: answered 404 while `/readyz` said
/// ready). Each is opened the first time a request names it, as at start.
extension StudyDesk {
    /// What the desk holds, as it stands.
    struct Served: Sendable {
        var studies: [String: CollectedStudy]
        var refused: [String: String]
        var failed: [String: String]
        /// When each name not served was last looked for.
        var looked: [String: ContinuousClock.Instant] = [:]
        /// When the looks of the last second began.
        var recentLooks: [ContinuousClock.Instant] = []
        /// The looks under way, which requests for the same name share.
        var looking: [String: Task<CollectedStudy?, Never>] = [:]
    }

    /// How often a name not served is looked for again.
    static let lookInterval: Duration = .seconds(5)

    /// The study `name` if it was added since the server started (or could not be opened then and can be now).
    func added(_ name: String) async -> CollectedStudy? {
        guard CollectionSettings.isName(name), !stopping else { return nil }
        guard let look = claimLook(name, making: { [self] in await open(name) }) else { return nil }
        let opened = await look.value
        endLook(name)
        guard let opened else { return nil }
        let study = keep(opened, as: name)
        if study === opened {
            CollectedStudy.logger.info(
                "study \(name) served from \(study.store.description) (added while the server runs)")
        }
        return study
    }

    /// Opens the study `name` under `parent`, written there from the database first when it is registered there
    /// only; nil when there is no such study, or it cannot be opened (why is kept in `failed` and logged).
    func open(_ name: String) async -> CollectedStudy? {
        let folder = parent.appendingPathComponent(name)
        do {
            if let database {
                if !(await BlockingWork.run { CollectionFolder.isCollected(folder) }) {
                    guard try await database.writeStudy(name, into: parent, withRecordings: keepsFiles) else {
                        return nil
                    }
                }
                return try await CollectedStudy(
                    folder: folder, database: database, keepsFiles: keepsFiles, clock: clock)
            }
            guard await BlockingWork.run({ CollectionFolder.isCollected(folder) }) else { return nil }
            return try await BlockingWork.run { [clock] in try CollectedStudy(folder: folder, clock: clock) }
        } catch {
            let why = (error as? MienError)?.description ?? "\(error)"
            served.withLock { $0.failed[name] = why }
            served.withLock { $0.refused[name] = why }
            CollectedStudy.logger.error("study \(name) is not served: \(why)")
            return nil
        }
    }

    /// Keeps a study opened while the server runs (the first one kept, should two requests have opened it).
    func keep(_ study: CollectedStudy, as name: String) -> CollectedStudy {
        served.withLock { served in
            if let existing = served.studies[name] { return existing }
            served.studies[name] = study
            served.failed[name] = nil
            served.refused[name] = nil
            return study
        }
    }

    /// Claims the look for `name` a request may make now: the one under way, a new one, or nil while the last
    /// ended less than `lookInterval` ago (a client asking for names that do not exist reaches neither the disk
    /// nor the database more often than that).
    func claimLook(_ name: String, making: @Sendable @escaping () async -> CollectedStudy?) -> Task<
        CollectedStudy?, Never
    >? {
        let now = ContinuousClock.now
        return served.withLock { served in
            if let looking = served.looking[name] { return looking }
            if let last = served.looked[name], now - last < Self.lookInterval { return nil }
            // And ten looks a second in all, whatever the names (each may ask the database).
            served.recentLooks.removeAll { now - $0 > .seconds(1) }
            guard served.recentLooks.count < 10 else { return nil }
            served.recentLooks.append(now)
            if served.looked.count > 4096 {
                served.looked = served.looked.filter { now - $0.value < Self.lookInterval }
            }
            served.looked[name] = now
            let task = Task { await making() }
            served.looking[name] = task
            return task
        }
    }

    /// Ends the look for `name` that `claimLook` started.
    func endLook(_ name: String) {
        let now = ContinuousClock.now
        served.withLock { served in
            served.looking[name] = nil
            served.looked[name] = now
        }
    }
}
