import Foundation
import MienCore

/// When a stimulus socket's frames arrived, for the rule that keeps a place for real viewing only.
///
/// Once `window` has passed since its first frame, a socket must have delivered a frame every 2 s on average over
/// the last `window`, or it is closed and its place goes to whoever waits (a socket trickling one frame every 30 s
/// held a place for minutes). A page whose advert buffers for longer than that is closed too, and comes back by
/// itself.
final class FrameCadence: Sendable {
    private struct State {
        var first: ContinuousClock.Instant?
        /// Arrivals within the last window, oldest first.
        var recent: [ContinuousClock.Instant] = []
    }
    private let state = Locked(State())
    /// The span the rule looks at (20 s).
    let window: Duration

    init(window: Duration) { self.window = window }

    /// Frames a socket must deliver within `window`: one every 2 s.
    var minimum: Int { max(1, Int(window.components.seconds) / 2) }

    /// A frame the socket accepted.
    func arrived(at instant: ContinuousClock.Instant) {
        state.withLock { state in
            if state.first == nil { state.first = instant }
            state.recent.append(instant)
            state.recent.removeAll { instant - $0 > window }
        }
    }

    /// Frames within the last `window` when they are too few (the socket trickles), else nil; nothing before the
    /// first frame (the idle limit governs a socket that sends none) or within `window` of it.
    func trickling(at now: ContinuousClock.Instant) -> Int? {
        state.withLock { state in
            guard let first = state.first, now - first >= window else { return nil }
            let count = state.recent.filter { now - $0 <= window }.count
            return count < minimum ? count : nil
        }
    }
}
