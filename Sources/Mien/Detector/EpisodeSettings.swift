public import MienCore

/// Which metrics' episodes a `Detector` reports, and when a score counts as one (`EpisodeOptions`).
///
/// On by default for every scored metric that is on (expressions, emoji, emotions, valence, engagement),
/// and blinks when eye closure is on; raw scores stay raw unless `smoothing` and `smoothScores` say
/// otherwise.
public struct EpisodeSettings: Sendable, Equatable {
    /// Whether episodes are found at all.
    ///
    /// Default true.
    public var enabled: Bool
    /// The metrics watched, by name (`EpisodeEvent.metric`: `expressions.smile`, `emotions.joy`, `blink`, ...).
    ///
    /// Nil (default) watches every metric that is on. A name of a metric that is off watches nothing.
    public var metrics: Set<String>?
    /// Thresholds and durations for every metric without its own.
    ///
    /// Default on 50, off 30, 0.2 s, 0.2 s.
    public var defaults: EpisodeOptions
    /// Per-metric thresholds, by name.
    ///
    /// Valence's default is on 50 / off 30 of its positive side.
    public var perMetric: [String: EpisodeOptions]
    /// Blinks and winks (found when eye closure is on and `blink` is watched).
    public var blinks: BlinkOptions
    /// Time constant, seconds, of a low-pass filter (`ScoreSmoother`) applied to scores before episodes are
    /// found; nil (default) finds them on the raw scores.
    public var smoothing: Double?
    /// With `smoothing`: report the smoothed scores in the results too.
    ///
    /// Default false.
    public var smoothScores: Bool

    /// - Throws: `.invalidOptions` for a smoothing time constant that is not a positive number of seconds,
    ///   or `smoothScores` without `smoothing`.
    public init(
        enabled: Bool = true, metrics: Set<String>? = nil, defaults: EpisodeOptions? = nil,
        perMetric: [String: EpisodeOptions] = [:], blinks: BlinkOptions? = nil, smoothing: Double? = nil,
        smoothScores: Bool = false
    ) throws {
        if let smoothing { _ = try ScoreSmoother(timeConstant: smoothing) }
        if smoothScores && smoothing == nil {
            throw MienError(.invalidOptions, "smoothed scores need a smoothing time constant")
        }
        self.enabled = enabled
        self.metrics = metrics
        self.defaults = defaults ?? .standard
        self.perMetric = perMetric
        self.blinks = blinks ?? .standard
        self.smoothing = smoothing
        self.smoothScores = smoothScores
    }

    private init(enabled: Bool) {
        self.enabled = enabled
        metrics = nil
        defaults = .standard
        perMetric = [:]
        blinks = .standard
        smoothing = nil
        smoothScores = false
    }

    /// The defaults: every metric that is on, `EpisodeOptions.standard`, `BlinkOptions.standard`, raw scores.
    public static let standard = EpisodeSettings(enabled: true)
    /// No episodes.
    public static let off = EpisodeSettings(enabled: false)

    /// The options for `metric`.
    public func options(for metric: String) -> EpisodeOptions { perMetric[metric] ?? defaults }

    /// Whether `metric` is watched (given that it is on).
    public func watches(_ metric: String) -> Bool { enabled && (metrics?.contains(metric) ?? true) }
}

extension EpisodeSettings {
    /// The blink tracker's events (the person's eye), watched like metrics when eye closure is on.
    static let blinkEvents = ["blink", "winkLeft", "winkRight"]

    /// Every name a watched metric can have (`EpisodeEvent.metric`).
    public static var metricNames: [String] {
        MetricCatalog.entries.filter(\.episodes).map(\.name) + blinkEvents
    }

    /// The watched names (`metrics`) whose metric is not among `on`, so they could never have an episode
    /// (blinks and winks need eye closure).
    public func unmeasured(given on: Set<Metric>) -> [String] {
        guard let metrics else { return [] }
        return metrics.sorted().filter { name in
            if Self.blinkEvents.contains(name) { return !on.contains(.expression(.eyeClosure)) }
            guard let metric = MetricCatalog.entry(named: name)?.metric else { return true }
            return !on.contains(metric)
        }
    }

    /// The full name of the metric `text` names: a full name (`expressions.smile`), or a bare one that names
    /// one metric only (`smile`, `joy`, `blink`).
    /// - Throws: `.invalidOptions` for an unknown name, or a bare name two metrics share (`smirk`).
    public static func metricName(_ text: String) throws -> String {
        let names = metricNames
        if names.contains(text) { return text }
        let matches = names.filter { $0.hasSuffix("." + text) }
        switch matches.count {
        case 1: return matches[0]
        case 0:
            throw MienError(.invalidOptions, "no metric is called '\(text)' (one of: \(names.joined(separator: ", ")))")
        default:
            throw MienError(
                .invalidOptions,
                "'\(text)' names \(matches.count) metrics: say which (\(matches.joined(separator: " or ")))")
        }
    }
}
