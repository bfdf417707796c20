import Foundation
import MienCore

/// When a stimulus socket's frames arrived, for the rule that keeps a slot for real viewing only.
///
/// A stimulus socket keeps its slot (its share of the machine's analysis) while it delivers frames at a quarter
/// (`share`) or more of the rate the server asks that page for, over the last `window` (10 s): at the study's 10
/// frames a second, 25 frames in any 10 s; under load, as the rate asked falls toward `--min-rate` (5), 12. The
/// lowest rate asked within the window counts (a page hears of a lower rate a moment after it is set). It is
/// checked once `window` has passed since the first frame, and not while the page says it is hidden (a hidden page's
/// frames are not counted: the check starts again a window after it is shown). Issue 94: the earlier rule, a
/// frame every 2 s on average over 20 s, was held by two tokens sending one frame every 1.9 s for 150 s, and by
/// bursts of 11 frames every 19 s; both are far below a quarter of any rate asked.
///
/// A quarter of the rate asked is what the study's own measure needs: at the floor rate every frame measures
/// `frameSpan` (two intervals at `--min-rate`), so a page at a quarter of 10 frames a second still measures all of the
/// stimulus. A stimulus that buffers longer than about `window` × 3/4 sends no frame the server takes (its time
/// does not advance) and is closed too; the page comes back by itself.
///
/// It also tells a stimulus said to end sooner than the rest of it could have played (a seek, a faster rate, a
/// forged end). Every instant comes from the caller (the socket's clock; a test's own).
final class FrameCadence: Sendable {
    private struct State {
        /// The first frame's arrival and stimulus time, in seconds.
        var first: (arrival: ContinuousClock.Instant, time: Double)?
        /// Arrivals within the last window, oldest first.
        var recent: [ContinuousClock.Instant] = []
        /// The rates asked (frames per second) and since when, the last one before the window kept.
        var rates: [(since: ContinuousClock.Instant, rate: Double)] = []
        /// Since when the page has said it is hidden (nil: shown).
        var hiddenSince: ContinuousClock.Instant?
        /// When the page was last shown again after being hidden: the check waits a window from then.
        var shownAt: ContinuousClock.Instant?
    }
    private let state = Locked(State())
    /// The span the rule looks at (10 s).
    let window: Duration
    /// The share of the rate asked a socket must deliver (a quarter).
    let share: Double

    init(window: Duration, share: Double = 0.25) {
        self.window = window
        self.share = share
    }

    /// What the rule found wanting: frames within the window, and the fewest it needed.
    struct Shortfall: Sendable, Equatable {
        var frames: Int
        var needed: Int
        /// The rate asked the need was taken from (frames per second).
        var rate: Double
    }

    /// The server asks the page for `rate` frames per second from `instant` on.
    func asked(rate: Double, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.rates.append((instant, rate))
            // The rate in force at the window's start is the last one set before it: keep it, drop older ones.
            while state.rates.count > 1, state.rates[1].since <= instant - window { state.rates.removeFirst() }
        }
    }

    /// The page said it is hidden (true) or shown again (false) at `instant`.
    func hidden(_ hidden: Bool, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            if hidden {
                state.hiddenSince = state.hiddenSince ?? instant
            } else if state.hiddenSince != nil {
                state.hiddenSince = nil
                state.shownAt = instant
            }
        }
    }

    /// A frame the socket accepted, at `time` seconds of the stimulus.
    func arrived(at instant: ContinuousClock.Instant, time: Double) {
        state.withLock { state in
            if state.first == nil { state.first = (instant, time) }
            state.recent.append(instant)
            state.recent.removeAll { instant - $0 > window }
        }
    }

    /// What the socket fell short by when it delivered too few frames over the last window (it trickles), else nil;
    /// nil before the first frame (the idle limit governs a socket that sends none), within a window of it or of the
    /// page being shown again, and while it is hidden.
    func trickling(at now: ContinuousClock.Instant) -> Shortfall? {
        state.withLock { state in
            guard let first = state.first, now - first.arrival >= window, state.hiddenSince == nil,
                state.shownAt.map({ now - $0 >= window }) ?? true
            else { return nil }
            let frames = state.recent.filter { now - $0 <= window }.count
            // The lowest rate asked at any moment of the window: the one in force at its start, and those set since.
            let start = now - window
            let inForce = state.rates.last { $0.since <= start }.map { [$0.rate] } ?? []
            guard let rate = (inForce + state.rates.filter { $0.since > start }.map(\.rate)).min() else { return nil }
            let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
            let needed = max(1, Int(saturating: share * rate * seconds, rounding: .down))
            return frames < needed ? Shortfall(frames: frames, needed: needed, rate: rate) : nil
        }
    }

    /// How much sooner than its remaining length a stimulus may be said to have ended, in seconds: 1 s and 5 % of
    /// the stimulus (a page's timer and the first frame's delivery); a stall only makes it later.
    static func endSlack(duration: Double) -> Double { 1 + 0.05 * duration }

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
