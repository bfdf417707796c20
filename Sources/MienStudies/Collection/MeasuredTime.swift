/// How much of a stimulus's time was measured: each analysed frame measures the time around it, half of
/// `span` on each side, clipped to the stimulus; the union of those stretches over the duration is the share.
///
/// Why not the last frame's time over the duration: two frames at 0 and 14.9 s of a 15 s stimulus would count
/// as all of it. Why not frames over the expected count: a page slowed down by a busy server (down to the
/// study's floor rate) still measures every moment, which `span` (two intervals at the floor) covers.
import Mien

package struct MeasuredTime: Sendable, Equatable {
    /// The stimulus's length, in seconds (until a skip, once skipped).
    package private(set) var duration: Double
    /// Seconds of stimulus time one frame measures (`CollectionSettings.Fieldwork.frameSpan`).
    package let span: Double
    /// Seconds measured so far.
    package private(set) var seconds = 0.0
    /// Where the stretches measured so far end (frames come in time order).
    private var end = 0.0

    package init(duration: Double, span: Double) {
        self.duration = duration
        self.span = span
    }

    /// An analysed frame at `time` seconds of stimulus time (not earlier than the frames before it).
    package mutating func add(_ time: Double) {
        guard time.isFinite else { return }
        let low = max(0, time - span / 2)
        let high = min(duration, time + span / 2)
        let from = max(low, end)
        if high > from { seconds += high - from }
        end = max(end, high)
    }

    /// The stimulus ended at `time` seconds (the viewer skipped it): the share is of the part that played.
    package mutating func end(at time: Double) {
        guard time.isFinite, time > 0, time < duration else { return }
        duration = time
        seconds = min(seconds, time)
    }

    /// The share of the duration measured, 0...1, to three decimals.
    package var share: Double {
        guard duration > 0 else { return 0 }
        return (min(1, seconds / duration) * 1000).rounded() / 1000
    }
}
