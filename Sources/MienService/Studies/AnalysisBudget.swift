import Foundation
import MienCore

/// The frames per second this machine analyses, shared by every study socket: a busy server asks pages for a
/// lower frame rate (down to each study's floor) before it makes anyone wait, and those who wait are let in
/// first come, first served, those already watching a study first.
///
/// Each socket holds a lease of the rate its study asks for; when the leases ask for more than the budget, every
/// one is scaled down alike (never below its floor), and each page is told its new rate. A socket is admitted
/// when the floors of the leases open, its own included, fit the budget; otherwise it waits in the queue.
/// Framing sockets count only while their frames flow.
///
/// The budget starts at the measured capacity (`ServiceOptions.analysisFramesPerSecond`) and follows what the
/// detectors report: when the sockets' frames are dropped for want of time (more than 3 % in a 2 s window),
/// it shrinks by 15 %; when they all are analysed, it grows back by 5 % a window. So a machine slower than the
/// one measured, or one shared with other work, slows pages down rather than losing their frames.
///
/// It cannot be poisoned: frames that cannot be decoded are not counted (the stimulus socket leaves them out of
/// its reports), and a machine that has too few frames to judge (fewer than 20 in a window: nearly idle) grows the
/// budget back by a quarter a window, all the way when that window lasted `idleWindows` windows or more, so a
/// client that made it shrink does not leave it shrunk once it leaves.
final class AnalysisBudget: Sendable {
    /// The capacity measured, frames per second.
    let capacity: Double

    struct Lease: Sendable {
        var rate: Double
        var floor: Double
        var flowing: Bool
        /// A framing check's (counted against `maximumFramingChecks` whether its frames flow or not).
        var framing: Bool
        var told: Double
        var onRate: @Sendable (Double) -> Void
    }

    struct Waiter: Sendable {
        var ticket: UUID
        var priority: Bool
        var arrived: ContinuousClock.Instant
        var seen: ContinuousClock.Instant
    }

    private struct State {
        var budget: Double
        var leases: [UUID: Lease] = [:]
        var queue: [Waiter] = []
        var window = (received: 0, analysed: 0)
        var windowStart: ContinuousClock.Instant
    }
    private let state: Locked<State>

    /// Seconds a waiter that stopped asking stays in the queue.
    static let staleWaiter = Duration.seconds(10)
    /// The adaptation's window (2 s).
    let window: Duration
    /// Windows without a judgement (nearly idle) after which the budget is the capacity again.
    static let idleWindows = 5

    /// Framing checks open at once at most.
    ///
    /// Twice the checks the capacity runs at their 5 frames a second, and 16 at
    /// least (issue 94: a framing socket whose frames do not flow took no share of the budget, so a thousand of them
    /// held open by junk took a thousand detector runs' memory). A check lasts seconds; one more waits in the queue.
    let maximumFramingChecks: Int

    /// - Parameter window: the adaptation's window (shorter in tests).
    init(framesPerSecond: Double, window: Duration = .seconds(2)) {
        capacity = framesPerSecond
        maximumFramingChecks = max(16, Int(saturating: framesPerSecond / 5 * 2, rounding: .down))
        self.window = window
        state = Locked(State(budget: framesPerSecond, windowStart: .now))
    }

    /// Where a socket stands.
    enum Admission: Equatable {
        /// In, at this rate (frames per second).
        case admitted(rate: Double)
        /// Waiting: its place in the queue (from 1) and how many wait.
        case queued(position: Int, waiting: Int)
    }

    /// Asks for a place for `ticket` (call again, about once a second, while queued).
    /// - Parameters:
    ///   - rate: the frame rate its study asks for; `floor`: the lowest it may be slowed to.
    ///   - priority: the participant is already watching the study (they go before newcomers).
    ///   - flowing: whether its frames count at once (a framing socket counts only once frames flow).
    ///   - framing: a framing check's (no more than `maximumFramingChecks` open at once).
    ///   - onRate: told each new rate the page should send at (not under the lock).
    func admit(
        _ ticket: UUID, rate: Double, floor: Double, priority: Bool, flowing: Bool = true, framing: Bool = false,
        onRate: @escaping @Sendable (Double) -> Void
    ) -> Admission {
        let now = ContinuousClock.now
        let (admission, notices) = state.withLock { state -> (Admission, [(@Sendable (Double) -> Void, Double)]) in
            if let lease = state.leases[ticket] { return (.admitted(rate: lease.told), []) }
            state.queue.removeAll { now - $0.seen > Self.staleWaiter }
            if let index = state.queue.firstIndex(where: { $0.ticket == ticket }) {
                state.queue[index].seen = now
            } else {
                state.queue.append(Waiter(ticket: ticket, priority: priority, arrived: now, seen: now))
            }
            state.queue.sort { ($0.priority ? 0 : 1, $0.arrived) < ($1.priority ? 0 : 1, $1.arrived) }
            let position = state.queue.firstIndex { $0.ticket == ticket } ?? 0
            let floors = state.leases.values.filter(\.flowing).reduce(0) { $0 + $1.floor }
            let checks = framing ? state.leases.values.filter(\.framing).count : 0
            guard position == 0, floors + (flowing ? floor : 0) <= state.budget + 1e-9,
                checks < maximumFramingChecks
            else {
                return (.queued(position: position + 1, waiting: state.queue.count), [])
            }
            state.queue.removeFirst()
            state.leases[ticket] = Lease(
                rate: rate, floor: floor, flowing: flowing, framing: framing, told: rate, onRate: onRate)
            let notices = Self.allocate(&state, except: ticket)
            return (.admitted(rate: state.leases[ticket]?.told ?? rate), notices)
        }
        for (tell, rate) in notices { tell(rate) }
        return admission
    }

    /// A queued socket that gave up (closed while waiting).
    func leave(_ ticket: UUID) {
        state.withLock { state in state.queue.removeAll { $0.ticket == ticket } }
    }

    /// A socket that closed: its share goes to the others.
    func release(_ ticket: UUID) {
        let notices = state.withLock { state in
            state.queue.removeAll { $0.ticket == ticket }
            guard state.leases.removeValue(forKey: ticket) != nil else {
                return [(@Sendable (Double) -> Void, Double)]()
            }
            return Self.allocate(&state)
        }
        for (tell, rate) in notices { tell(rate) }
    }

    /// Whether a lease's frames flow now (a framing socket counts only then).
    func setFlowing(_ ticket: UUID, _ flowing: Bool) {
        let notices = state.withLock { state in
            guard var lease = state.leases[ticket], lease.flowing != flowing else {
                return [(@Sendable (Double) -> Void, Double)]()
            }
            lease.flowing = flowing
            state.leases[ticket] = lease
            return Self.allocate(&state)
        }
        for (tell, rate) in notices { tell(rate) }
    }

    /// Frames a stimulus socket received and had analysed since its last report (the budget follows the
    /// share dropped).
    func report(received: Int, analysed: Int) {
        let now = ContinuousClock.now
        let notices = state.withLock { state -> [(@Sendable (Double) -> Void, Double)] in
            state.window.received += received
            state.window.analysed += analysed
            let elapsed = now - state.windowStart
            guard elapsed >= window else { return [] }
            let (received, analysed) = state.window
            state.window = (0, 0)
            state.windowStart = now
            let before = state.budget
            if received < 20 {
                // Too few frames to judge: the machine was nearly idle, for a long while (the capacity again) or a
                // window (a quarter back).
                state.budget =
                    elapsed >= window * Self.idleWindows ? capacity : min(capacity, state.budget * 1.25)
            } else if Double(analysed) / Double(received) < 0.97 {
                state.budget = max(capacity * 0.2, state.budget * 0.85)
            } else if Double(analysed) / Double(received) >= 0.995 {
                state.budget = min(capacity, state.budget * 1.05)
            }
            return abs(state.budget - before) > 1e-9 ? Self.allocate(&state) : []
        }
        for (tell, rate) in notices { tell(rate) }
    }

    /// The budget now, the leases flowing, and those waiting (the dashboard, `/metrics`).
    var load: (budget: Double, open: Int, flowing: Int, waiting: Int, asked: Double) {
        state.withLock { state in
            let flowing = state.leases.values.filter(\.flowing)
            return (
                state.budget, state.leases.count, flowing.count, state.queue.count, flowing.reduce(0) { $0 + $1.told }
            )
        }
    }

    /// Scales every flowing lease's rate alike to fit the budget, never below its floor, rounded to a quarter
    /// frame per second; returns the pages to tell (a change of a quarter frame or more).
    private static func allocate(_ state: inout State, except skipped: UUID? = nil) -> [(
        @Sendable (Double) -> Void, Double
    )] {
        let asked = state.leases.values.filter(\.flowing).reduce(0) { $0 + $1.rate }
        let scale = asked > state.budget ? state.budget / asked : 1
        var notices: [(@Sendable (Double) -> Void, Double)] = []
        for (ticket, var lease) in state.leases {
            let rate = max(lease.floor, (lease.rate * scale * 4).rounded(.down) / 4)
            guard abs(rate - lease.told) >= 0.25 else { continue }
            lease.told = rate
            state.leases[ticket] = lease
            if ticket != skipped { notices.append((lease.onRate, rate)) }
        }
        return notices
    }
}
