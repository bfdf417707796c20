/// The incoming-rate limit of a socket that receives frames: a token bucket of `burst` frames refilled at
/// `rate` per second.
///
/// A browser's timers and `toBlob` callbacks bunch up (Chromium sent 4 frames within a few milliseconds at
/// 15 fps when the page started), which must not count as flooding; a sustained excess does.
struct FrameAllowance: Sendable {
    let rate: Double
    /// Frames a client may send back to back: a quarter of a second's worth by default, at least 3.
    let burst: Double
    private var allowance: Double
    private var lastArrival: ContinuousClock.Instant?
    private var lastNotice: ContinuousClock.Instant?

    /// - Parameter burstSeconds: the burst as seconds of frames at `rate` (3 frames at least).
    init(rate: Double, burstSeconds: Double = 0.25) {
        self.rate = rate
        burst = max(3, rate * burstSeconds)
        allowance = burst
    }

    /// Whether a frame arriving `now` is within the rate, and whether its refusal should be said (at most once
    /// a second).
    mutating func admit(at now: ContinuousClock.Instant) -> (admitted: Bool, notify: Bool) {
        if let last = lastArrival {
            allowance = min(burst, allowance + (now - last).seconds * rate)
        }
        lastArrival = now
        guard allowance < 1 else {
            allowance -= 1
            return (true, false)
        }
        let notify = lastNotice.map { now - $0 >= .seconds(1) } ?? true
        if notify { lastNotice = now }
        return (false, notify)
    }
}
