import Foundation
import MienCore

/// When a stimulus socket's frames arrived, for the rule that keeps a place for real viewing only.
///
/// Once `window` has passed since its first frame, a socket must have delivered a frame every 2 s on average over
/// the last `window`, or it is closed and its place goes to whoever waits (a socket trickling one frame every 30 s
/// held a place for minutes). A page whose advert buffers for longer than that is closed too, and comes back by
/// itself. It also tells a stimulus said to end sooner than the rest of it could have played (a seek, a faster
/// rate, a forged end).
final class FrameCadence: Sendable {
    private struct State {
        /// The first frame's arrival and stimulus time, in seconds.
        var first: (arrival: ContinuousClock.Instant, time: Double)?
        /// Arrivals within the last window, oldest first.
        var recent: [ContinuousClock.Instant] = []
    }
    private let state = Locked(State())
    /// The span the rule looks at (20 s).
    let window: Duration

    init(window: Duration) { self.window = window }

    /// Frames a socket must deliver within `window`: one every 2 s.
    var minimum: Int { max(1, Int(window.components.seconds) / 2) }

    /// How much sooner than its remaining length a stimulus may be said to have ended, in seconds: 1 s and 5 % of
    /// the stimulus (a page's timer and the first frame's delivery); a stall only makes it later.
    static func endSlack(duration: Double) -> Double { 1 + 0.05 * duration }

    /// A frame the socket accepted, at `time` seconds of the stimulus.
    func arrived(at instant: ContinuousClock.Instant, time: Double) {
        state.withLock { state in
            if state.first == nil { state.first = (instant, time) }
            state.recent.append(instant)
            state.recent.removeAll { instant - $0 > window }
        }
    }

    /// Frames within the last `window` when they are too few (the socket trickles), else nil; nothing before the
    /// first frame (the idle limit governs a socket that sends none) or within `window` of it.
    func trickling(at now: ContinuousClock.Instant) -> Int? {
        state.withLock { state in
            guard let first = state.first, now - first.arrival >= window else { return nil }
            let count = state.recent.filter { now - $0 <= window }.count
            return count < minimum ? count : nil
        }
    }

    /// When the page says a stimulus of `duration` seconds ended at `now`: the seconds played since the first frame
    /// and those that were left to play then, when it ended too soon (else nil; nil before any frame).
    func endedTooSoon(at now: ContinuousClock.Instant, duration: Double) -> (played: Double, left: Double)? {
        guard let first = state.withLock({ $0.first }) else { return nil }
        let (seconds, attoseconds) = (now - first.arrival).components
        let played = Double(seconds) + Double(attoseconds) / 1e18
        let left = duration - first.time
        return played < left - Self.endSlack(duration: duration) ? (played, left) : nil
    }
}
