import MienCore

/// What `MienDev fleet-faults` asks of a simulated participant while they watch.
///
/// A second tab of theirs, or their page cut and back through a server it names; each participant reads theirs
/// between two frames.
final class FleetDirections: Sendable {
    enum Direction: Sendable {
        /// Open the stimulus in a second tab (the same token, as a tab of the same browser has), while the first
        /// still streams: the newer goes on, the older is told `replaced`.
        case secondTab
        /// Cut the socket (as a network lost) and come back through this `host:port`, not the balancer.
        case returnThrough(String)
    }

    typealias Watched = (end: FleetParticipant.End, sent: Int, detail: String, ready: Bool)

    private let pending = Locked([String: Direction]())
    private let returning = Locked([String: String]())
    private let tabs = Locked([String: Task<Watched, any Error>]())

    init() {}

    func give(_ direction: Direction, to participant: String) {
        pending.withLock { $0[participant] = direction }
    }

    /// The direction given to `participant` and not yet taken.
    func take(_ participant: String) -> Direction? {
        pending.withLock { $0.removeValue(forKey: participant) }
    }

    /// Where `participant`'s page comes back through, once (nil: the balancer).
    func takeReturn(_ participant: String) -> String? {
        returning.withLock { $0.removeValue(forKey: participant) }
    }

    func setReturn(_ participant: String, through address: String) {
        returning.withLock { $0[participant] = address }
    }

    /// `participant`'s second tab, watching.
    func openTab(_ participant: String, _ watch: @escaping @Sendable () async throws -> Watched) {
        tabs.withLock { $0[participant] = Task { try await watch() } }
    }

    /// `participant`'s second tab, once: the caller waits for what it met.
    func takeTab(_ participant: String) -> Task<Watched, any Error>? {
        tabs.withLock { $0.removeValue(forKey: participant) }
    }
}
