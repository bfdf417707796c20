import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies
import ServiceLifecycle
import Synchronization

/// Every study folder under `mien serve --studies PARENT`, by name (the folder's name), and what they share:
/// the machine's analysis budget, the consent limits per address, and the shutdown.
///
/// A folder that is not a study, or whose settings or stimuli do not check, is not served; why is logged at
/// start and `GET /studies` (researcher) lists it. A study added while the server runs (a folder made under the
/// parent, a study registered in the database by `mien study init --store`) is opened when it is first asked for.
final class StudyDesk: Sendable {
    let parent: URL
    /// The studies served, and those that could not be, as they stand (a study may be added while the server runs).
    let served: Locked<Served>
    /// The studies served, by name.
    var studies: [String: CollectedStudy] { served.withLock { $0.studies } }
    /// Folders that could not be served, with the reason.
    var refused: [String: String] { served.withLock { $0.refused } }
    /// Of those, the studies this server should serve but could not open (a copy that differs from the study the
    /// database registered, a stimulus changed since `mien study init`): the server is not ready while any is.
    var failed: [String: String] { served.withLock { $0.failed } }
    /// Whether participants' result files are written in the study folders (see `StudyStore.keepsFiles`).
    let keepsFiles: Bool
    let clock: @Sendable () -> Date
    /// The last reason `unready()` gave, so that each new one is logged once.
    private let unreadySaid = Locked<String?>(nil)
    let dashboards: DashboardCache
    let budget: AnalysisBudget
    let consents = ConsentLimiter()
    /// Gives the memory closed sockets freed back to the system.
    let memory = MemoryRelease.shared
    /// The one socket of each participant (study name, then ID) that may wait in the analysis queue: a newer one
    /// takes the place, so one token's many sockets hold one place, not many.
    let queued = Locked<[String: UUID]>([:])
    /// The database the studies' sessions live in, when not their folders.
    let database: StudyDatabase?
    /// Set when the server begins to shut down: no socket is opened, queued pages are told it restarts.
    private let stoppingFlag = Atomic<Bool>(false)
    /// The database's last answer to `accepting()`'s ping (nil: it answered), when it was had, and since when one
    /// is being asked.
    private let databaseAnswer = Locked<
        (reason: String?, had: ContinuousClock.Instant?, asking: ContinuousClock.Instant?)
    >(
        (nil, nil, nil))

    /// Serves the study folders under `parent`, each keeping its sessions in its folder.
    /// - Throws: `.notFound` when `parent` is not a folder.
    convenience init(
        parent: URL, budget: AnalysisBudget, logger: Logger = CollectedStudy.logger,
        clock: @escaping @Sendable () -> Date = Date.init
    ) throws {
        var studies: [String: CollectedStudy] = [:]
        var refused: [String: String] = [:]
        var failed: [String: String] = [:]
        for (name, folder) in try Self.studyFolders(parent, refused: &refused) {
            do {
                studies[name] = try CollectedStudy(folder: folder, clock: clock)
            } catch {
                failed[name] = (error as? MienError)?.description ?? "\(error)"
            }
        }
        self.init(
            parent: parent, budget: budget, studies: studies, refused: refused, failed: failed, database: nil,
            keepsFiles: true, logger: logger, clock: clock)
    }

    /// Serves the study folders under `parent` (this server's copy of each), their sessions in `database`,
    /// shared with every server given the same database.
    /// - Parameters:
    ///   - refused: studies not served before their folders were looked at, with the reason.
    ///   - keepsFiles: write participants' result files in the folders too (false: working copies of a database's).
    /// - Throws: `.notFound` when `parent` is not a folder.
    convenience init(
        parent: URL, database: StudyDatabase, budget: AnalysisBudget, refused: [String: String] = [:],
        keepsFiles: Bool = true, logger: Logger = CollectedStudy.logger,
        clock: @escaping @Sendable () -> Date = Date.init
    ) async throws {
        var studies: [String: CollectedStudy] = [:]
        var failed: [String: String] = [:]
        // The parent folder listed off the cooperative pool.
        let (folders, refused) = try await BlockingWork.run { [refused] in
            var refused = refused
            return (try Self.studyFolders(parent, refused: &refused), refused)
        }
        for (name, folder) in folders {
            do {
                studies[name] = try await CollectedStudy(
                    folder: folder, database: database, keepsFiles: keepsFiles, clock: clock)
            } catch {
                failed[name] = (error as? MienError)?.description ?? "\(error)"
            }
        }
        self.init(
            parent: parent, budget: budget, studies: studies, refused: refused, failed: failed, database: database,
            keepsFiles: keepsFiles, logger: logger, clock: clock)
    }

    private init(
        parent: URL, budget: AnalysisBudget, studies: [String: CollectedStudy], refused: [String: String],
        failed: [String: String], database: StudyDatabase?, keepsFiles: Bool, logger: Logger,
        clock: @escaping @Sendable () -> Date
    ) {
        self.parent = parent
        self.budget = budget
        served = Locked(Served(studies: studies, refused: refused.merging(failed) { $1 }, failed: failed))
        self.database = database
        self.keepsFiles = keepsFiles
        self.clock = clock
        dashboards = DashboardCache()
        for name in studies.keys.sorted() {
            guard let study = studies[name] else { continue }
            let counts = study.sessions.reduce(into: [String: Int]()) { $0[$1.state.rawValue, default: 0] += 1 }
            // A fleet's servers name one another by this ID in the database (socket holders, heartbeats): the log says
            // which one this is.
            let server = database.map { " as server \($0.server)" } ?? ""
            logger.info(
                "study \(name) served from \(study.store.description)\(server): \(counts.isEmpty ? "no participant yet" : counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))"
            )
        }
        for (name, why) in refused.sorted(by: { $0.key < $1.key }) {
            logger.error("study \(name) is not served: \(why)")
        }
    }

    /// The study folders under `parent` by name; a folder whose name cannot be a study's is refused.
    private static func studyFolders(_ parent: URL, refused: inout [String: String]) throws -> [(String, URL)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw MienError(.notFound, "--studies: not a folder", input: DatabaseURL.redacted(parent.path))
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: parent.path)
        } catch {
            throw MienError(.ioFailure, "--studies: the folder cannot be listed (\(error))", input: parent.path)
        }
        var folders: [(String, URL)] = []
        for name in names.sorted() where CollectionFolder.isCollected(parent.appendingPathComponent(name)) {
            guard CollectionSettings.isName(name) else {
                refused[name] = "a study's folder name is 1-64 letters, digits, '_' or '-'"
                continue
            }
            folders.append((name, parent.appendingPathComponent(name)))
        }
        return folders
    }

    /// The study of that name, opened now if it was added since the server started (`StudyDesk+Adding`).
    /// - Throws: `ServiceRefusal` 404.
    func study(_ name: String) async throws -> CollectedStudy {
        if let study = studies[name] { return study }
        if let study = await added(name) { return study }
        throw ServiceRefusal(status: .notFound, code: "notFound", message: "no study of that name is served here")
    }

    /// Why this server should not be sent participants, or nil: shutting down, or a study it should serve that it
    /// could not open (its pages would get 404 while another server serves them).
    ///
    /// The studies' database is not asked: every server of a study shares it, so an outage would take them all out
    /// of the balancer at once, turning the pages' own "try again" answers into the balancer's bare 503, and the
    /// participants in a stimulus go on being measured meanwhile (`accepting()` says whether new ones can be).
    func unready() -> String? {
        let failed = failed
        let reason: String? =
            if stopping {
                "shutting down"
            } else if let name = failed.keys.sorted().first, let why = failed[name] {
                "study \(name) is not served: \(why)\(failed.count > 1 ? " (and \(failed.count - 1) more study)" : "")"
            } else {
                nil
            }
        // Said in the log once per reason (issue 96 item 11: `/readyz` said "see the log" and nothing was logged).
        let changed = unreadySaid.withLock { said -> Bool in
            defer { said = reason }
            return said != reason
        }
        if changed, let reason {
            CollectedStudy.logger.warning("not ready for participants: \(reason)")
        } else if changed {
            CollectedStudy.logger.info("ready for participants again")
        }
        return reason
    }

    /// Why new participants cannot be taken now (the studies' database does not answer), or nil; never waits.
    ///
    /// The answer is that of a query in the background (at most one a second; one slower than half a second
    /// counts as no answer): a consent could not be kept.
    func accepting() async -> String? {
        guard let database else { return nil }
        // A probe never waits for the database: a frozen one (a partition, a stopped host) held every `/readyz`
        // for the ping's 2 s, past HAProxy's 1-s check, and took every server out of the balancer (`make
        // fleet-faults`, seed 8).
        let silent = "the studies' database does not answer"
        let now = ContinuousClock.now
        let (ask, known) = databaseAnswer.withLock { state -> (Bool, String?) in
            if let asking = state.asking { return (false, now - asking > .milliseconds(500) ? silent : state.reason) }
            if let had = state.had, now - had < .seconds(1) { return (false, state.reason) }
            state.asking = now
            return (true, state.reason)
        }
        // The probe never waits: the ping goes on in the background and the next probe reads its answer.
        if ask {
            Task { [databaseAnswer] in
                var reason: String?
                do { try await database.ping() } catch { reason = silent }
                databaseAnswer.withLock { $0 = (reason, .now, nil) }
            }
        }
        return known
    }

    /// Whether the server is shutting down.
    var stopping: Bool { stoppingFlag.load(ordering: .relaxed) }

    /// Tells every open study socket the server restarts (the pages come back by themselves when it is up
    /// again, on this server or another of the study) and waits, `grace` at most, for each to record what it
    /// measured.
    ///
    /// With a `drain`, participants in a stimulus first have that long to watch it to its end (their next
    /// stimulus's socket is told the server restarts); framing checks are told at once.
    func stop(grace: Duration, drain: Duration = .zero) async {
        stoppingFlag.store(true, ordering: .relaxed)
        if drain > .zero { await letStimuliEnd(within: drain) }
        let open = openSockets()
        guard !open.isEmpty else { return }
        CollectedStudy.logger.info(
            "studies: the server is stopping; \(open.count) participant socket(s) told it restarts")
        for socket in open { socket.close(.serverRestarting) }
        await withTaskGroup(of: Void.self) { group in
            for socket in open { group.addTask { await socket.done.wait(timeout: grace) } }
        }
    }

    private func openSockets() -> [CollectedStudy.OpenSocket] {
        studies.values.flatMap { study in study.local.withLock { Array($0.open.values) } }
    }

    /// Waits, `drain` at most, until no participant socket is in a stimulus; framing sockets are closed first.
    private func letStimuliEnd(within drain: Duration) async {
        let deadline = ContinuousClock.now + drain
        for socket in openSockets() where !socket.inStimulus { socket.close(.serverRestarting) }
        var watching = openSockets().filter(\.inStimulus).count
        guard watching > 0 else { return }
        CollectedStudy.logger.info(
            "studies: the server is stopping; \(watching) participant(s) may finish their stimulus (\(drain) at most)")
        while watching > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(250)) } catch { return }
            watching = openSockets().filter(\.inStimulus).count
        }
    }
}

/// Shuts the studies down before the HTTP server: pages in a stimulus are told the server restarts and their
/// measurements are recorded, while the sockets are still open to say so.
///
/// Listed after the application in the service group, whose graceful shutdown goes in reverse order, so it runs
/// first.
struct StudiesShutdown: Service {
    let desk: StudyDesk
    let grace: Duration
    let drain: Duration

    func run() async throws {
        try? await gracefulShutdown()
        await desk.stop(grace: grace, drain: drain)
        await desk.database?.retire()
    }
}

/// Every quarter of the database's lease, while the server runs: its heartbeat, then each study's upkeep.
///
/// Only with a database store (`CollectedStudy.upkeep`).
struct StudiesUpkeep: Service {
    let desk: StudyDesk
    let database: StudyDatabase

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await database.heartbeat()
                } catch {
                    CollectedStudy.logger.error("studies: this server's heartbeat cannot be written: \(error)")
                }
                for study in desk.studies.values { await study.upkeep() }
                do { try await Task.sleep(for: database.lease / 4) } catch { return }
            }
        }
    }
}
