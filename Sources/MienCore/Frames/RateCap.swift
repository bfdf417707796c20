/// Chooses which frames a rate cap (`maxProcessRate`) lets through: at most `rate` frames a second over any
/// stretch, and as close to `rate` as the source allows, even when its timestamps jitter.
///
/// Frames are due on a grid of times one interval (1 / rate seconds) apart, anchored at the first frame.
/// A frame is let through when it is the first at or after its due time less a slack; the next due time
/// is then one interval later on the grid. The slack is half the smaller of the interval and the source's
/// own frame gap (a running mean of the gaps between timestamps), so a frame stamped a few milliseconds early
/// by a sender's clock still counts for its slot, while a fast source (30 fps capped at 5) still gives every
/// 6th frame. A strict minimum gap between processed frames, as before, skipped every frame that came a
/// fraction of a millisecond early and then waited a whole frame: 30 fps capped at 30 delivered 19 a second.
///
/// After a pause in the source (a frame more than half an interval past its due time) the grid is
/// re-anchored at that frame, so a pause is never followed by a burst that "catches up".
package struct RateCap: Sendable, Equatable, Codable {
    /// Seconds between due times: 1 / the rate.
    package let interval: Double
    /// When the next frame is due, in stream seconds; nil before the first frame.
    private var nextDue: Double?
    /// The previous frame's timestamp, let through or not.
    private var lastSeen: Double?
    /// Running mean of the gaps between frames, in seconds.
    private var meanGap: Double?

    /// - Parameter rate: frames per second, positive and finite (`DetectorOptions` validates it).
    package init(rate: Double) {
        interval = 1 / rate
    }

    /// Whether the frame at `timestamp` (seconds, stream time) is processed; records the decision.
    package mutating func admits(_ timestamp: Double) -> Bool {
        if let lastSeen, timestamp > lastSeen {
            let gap = timestamp - lastSeen
            // A slow running mean: one late frame does not widen the slack much.
            meanGap = meanGap.map { 0.9 * $0 + 0.1 * gap } ?? gap
        }
        lastSeen = timestamp
        guard let due = nextDue else {
            nextDue = timestamp + interval
            return true
        }
        // A thousandth of the interval absorbs timestamp rounding before the source's gap is known.
        let slack = max(min(interval, meanGap ?? 0) / 2, interval * 0.001)
        guard timestamp >= due - slack else { return false }
        nextDue = timestamp - due > interval / 2 ? timestamp + interval : due + interval
        return true
    }

    /// Forgets the grid and the source's gap (a reset, or a stream that starts again).
    package mutating func reset() {
        nextDue = nil
        lastSeen = nil
        meanGap = nil
    }
}
