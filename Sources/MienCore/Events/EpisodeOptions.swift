/// When a score (0...100) counts as an episode: hysteresis thresholds and durations on stream time.
///
/// An episode starts when the score reaches `on` and ends when it falls below `off` (lower, so a score
/// hovering at one threshold does not start and end episodes on every frame). Two episodes less than
/// `mergeGap` seconds apart are one, and an episode shorter than `minimumDuration` seconds (from onset to
/// offset) is not counted. Times are seconds of the stream's clock, not frame counts, so the episodes are
/// the same at any frame rate or rate cap.
public struct EpisodeOptions: Sendable, Equatable, Codable {
    /// The score an episode starts at (0...100).
    ///
    /// Default 50.
    public var on: Double
    /// The score an episode ends below (0...`on`).
    ///
    /// Default 30.
    public var off: Double
    /// Shortest episode counted, seconds.
    ///
    /// Default 0.2.
    public var minimumDuration: Double
    /// Two episodes closer than this, seconds, are one.
    ///
    /// Default 0.2.
    public var mergeGap: Double

    /// - Throws: `MienError.Code.invalidOptions` naming a value out of range.
    public init(on: Double = 50, off: Double = 30, minimumDuration: Double = 0.2, mergeGap: Double = 0.2) throws {
        guard (0...100).contains(on), on > 0 else {
            throw MienError(.invalidOptions, "an episode's on threshold must be in 0...100 and above 0, got \(on)")
        }
        guard (0...on).contains(off) else {
            throw MienError(.invalidOptions, "an episode's off threshold must be in 0...\(on) (its on), got \(off)")
        }
        guard minimumDuration >= 0, minimumDuration.isFinite else {
            throw MienError(
                .invalidOptions, "an episode's minimum duration must be 0 or more seconds, got \(minimumDuration)")
        }
        guard mergeGap >= 0, mergeGap.isFinite else {
            throw MienError(.invalidOptions, "an episode's merge gap must be 0 or more seconds, got \(mergeGap)")
        }
        self.init(checked: on, off: off, minimumDuration: minimumDuration, mergeGap: mergeGap)
    }

    private init(checked on: Double, off: Double, minimumDuration: Double, mergeGap: Double) {
        self.on = on
        self.off = off
        self.minimumDuration = minimumDuration
        self.mergeGap = mergeGap
    }

    /// The defaults: on 50, off 30, 0.2 s, 0.2 s.
    public static let standard = EpisodeOptions(checked: 50, off: 30, minimumDuration: 0.2, mergeGap: 0.2)
    /// Blinks' closure: on 40, off 30, no minimum duration (a blink can last one frame at 25 fps), merge gap
    /// 0.1 s (`BlinkOptions`).
    public static let blinkClosure = EpisodeOptions(checked: 40, off: 30, minimumDuration: 0, mergeGap: 0.1)
}
