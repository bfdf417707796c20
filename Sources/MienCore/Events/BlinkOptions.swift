/// When the eyes' closure (0...100, `FacialExpression.eyeClosure` of each eye) counts as a blink or a wink.
///
/// A closure starts when the more closed eye reaches `closure.on` and ends when it falls below
/// `closure.off`; one no longer than `maximumDuration` is a blink (both eyes) or a wink (the other eye
/// stayed under `openBelow` throughout); a longer one is not a blink (eyes shut or cast down; the
/// `eyeClosure` metric's own episodes report it).
///
/// The defaults were chosen on hand-labelled blinks of the development videos
/// (`Tests/Fixtures/blink-labels/blinks.csv`; `make eval` prints the precision, recall and onset error
/// they give).
public struct BlinkOptions: Sendable, Equatable, Codable {
    /// Thresholds and durations of a closure.
    ///
    /// Default on 40, off 30, no minimum duration (a blink can last one frame at 25 fps), merge gap 0.1 s.
    public var closure: EpisodeOptions
    /// Longest closure that is a blink, seconds.
    ///
    /// Default 0.5 (blinks last 0.1–0.4 s).
    public var maximumDuration: Double
    /// A closure is a wink when the other eye's closure stays under this (0...100).
    ///
    /// Default 10 (open eyes read 0–15).
    public var openBelow: Double
    /// Blink rate: the sliding window, seconds.
    ///
    /// Default 60 (blinks per minute over the last minute).
    public var rateWindow: Double
    /// Blink rate: none until the face has been seen this long, seconds (a rate over a few seconds is noise).
    ///
    /// Default 5.
    public var rateWarmUp: Double

    /// - Throws: `MienError.Code.invalidOptions` naming a value out of range.
    public init(
        closure: EpisodeOptions? = nil, maximumDuration: Double = 0.5, openBelow: Double = 10,
        rateWindow: Double = 60, rateWarmUp: Double = 5
    ) throws {
        guard maximumDuration > 0, maximumDuration.isFinite else {
            throw MienError(.invalidOptions, "a blink's maximum duration must be a positive number of seconds")
        }
        guard (0...100).contains(openBelow) else {
            throw MienError(.invalidOptions, "a wink's open-eye level must be in 0...100, got \(openBelow)")
        }
        guard rateWindow > 0, rateWindow.isFinite, rateWarmUp >= 0, rateWarmUp <= rateWindow else {
            throw MienError(
                .invalidOptions, "the blink rate's window must be positive seconds and its warm-up 0...window")
        }
        self.init(
            checked: closure ?? .blinkClosure, maximumDuration: maximumDuration, openBelow: openBelow,
            rateWindow: rateWindow, rateWarmUp: rateWarmUp)
    }

    private init(
        checked closure: EpisodeOptions, maximumDuration: Double, openBelow: Double, rateWindow: Double,
        rateWarmUp: Double
    ) {
        self.closure = closure
        self.maximumDuration = maximumDuration
        self.openBelow = openBelow
        self.rateWindow = rateWindow
        self.rateWarmUp = rateWarmUp
    }

    /// The defaults.
    public static let standard = BlinkOptions(
        checked: .blinkClosure, maximumDuration: 0.5, openBelow: 10, rateWindow: 60, rateWarmUp: 5)
}
