import ArgumentParser
import Mien

/// Episode, smoothing and shot-cut options for the commands that follow faces through streams (`analyze`).
struct EpisodeArguments: ParsableArguments {
    @Flag(help: "Find no episodes (starts and ends of expressions, emotions and blinks) in videos and streams.")
    var noEpisodes = false

    @Option(
        help: ArgumentHelp(
            "Watch only these metrics for episodes, repeated or comma-separated (expressions.smile or smile, joy, blink, ...).",
            discussion: "Default: every scored metric that is on, and blinks when eye closure is on."))
    var episodeMetrics: [String] = []

    @Option(
        help: ArgumentHelp(
            "Episode thresholds for one metric, or for all with 'default': METRIC:on=50,off=30,min=0.2,gap=0.2 (repeatable).",
            discussion:
                "on/off: scores an episode starts at and ends below; min: shortest episode (s); gap: two episodes closer than this (s) are one."
        ))
    var episode: [String] = []

    @Option(help: "Seconds: time constant of a low-pass filter applied to scores before episodes are found.")
    var smoothing: Double?

    @Flag(help: "With --smoothing: report the smoothed scores too (raw scores stay raw otherwise).")
    var smoothScores = false

    @Option(
        help:
            "Shot cuts in videos and folders (not cameras): frame-to-frame colour change (0...1) that ends every face (default 0.12)."
    )
    var shotCutThreshold: Double?

    @Flag(help: "Look for no shot cuts (one continuous shot: faces are followed across any change).")
    var noShotCuts = false

    /// The episode settings these options give.
    /// - Throws: `ValidationError` naming the option at fault.
    func settings() throws -> EpisodeSettings {
        if noEpisodes && (!episodeMetrics.isEmpty || !episode.isEmpty || smoothing != nil) {
            throw ValidationError("--no-episodes cannot be combined with --episode-metrics, --episode or --smoothing")
        }
        if noEpisodes { return .off }
        do {
            let watched = try ListOption.split(episodeMetrics).map(EpisodeSettings.metricName)
            var defaults = EpisodeOptions.standard
            var perMetric: [String: EpisodeOptions] = [:]
            for text in episode {
                let (name, options) = try Self.parse(text, over: defaults)
                if let name { perMetric[name] = options } else { defaults = options }
            }
            return try EpisodeSettings(
                metrics: watched.isEmpty ? nil : Set(watched), defaults: defaults, perMetric: perMetric,
                smoothing: smoothing, smoothScores: smoothScores)
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    /// The shot-cut threshold (nil: none looked for).
    func shotCuts() throws -> Double? {
        if noShotCuts && shotCutThreshold != nil {
            throw ValidationError("--no-shot-cuts contradicts --shot-cut-threshold")
        }
        return noShotCuts ? nil : shotCutThreshold ?? ShotCutDetector.defaultThreshold
    }

    /// `METRIC:on=…,off=…,min=…,gap=…`: the metric's full name (nil for `default`) and its options.
    private static func parse(_ text: String, over defaults: EpisodeOptions) throws -> (String?, EpisodeOptions) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            throw MienError(.invalidOptions, "--episode '\(text)': expected METRIC:on=50,off=30,min=0.2,gap=0.2")
        }
        let name = parts[0] == "default" ? nil : try EpisodeSettings.metricName(parts[0])
        var values = [
            "on": defaults.on, "off": defaults.off, "min": defaults.minimumDuration, "gap": defaults.mergeGap,
        ]
        for pair in parts[1].split(separator: ",") {
            let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard keyValue.count == 2, values[keyValue[0]] != nil, let value = Double(keyValue[1]) else {
                throw MienError(
                    .invalidOptions, "--episode '\(text)': '\(pair)' is not on=, off=, min= or gap= a number")
            }
            values[keyValue[0]] = value
        }
        let options = try EpisodeOptions(
            on: values["on"] ?? defaults.on, off: values["off"] ?? defaults.off,
            minimumDuration: values["min"] ?? defaults.minimumDuration, mergeGap: values["gap"] ?? defaults.mergeGap)
        return (name, options)
    }
}
