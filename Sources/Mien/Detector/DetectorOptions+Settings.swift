extension Metric {
    /// The metric's name in results, the JSON path within a face (`expressions.smile`, `emoji.smirk`,
    /// `valence`), as `MetricCatalog` lists it; episodes and `mien metrics` use the same.
    public var name: String {
        MetricCatalog.entry(for: self)?.name ?? "\(self)"
    }
}

extension DetectorOptions {
    /// Every setting that changes what the results hold, as text, keyed by the option's name: what a shard
    /// manifest records so that `mien merge` can refuse to combine results made differently.
    ///
    /// The run's frame limit is `RunSettings.settings`; `settings(run:)` gives both.
    public var settings: [String: String] {
        func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "default" }
        return [
            "faceMode": detection.faceMode.rawValue,
            "maximumFaces": "\(detection.maximumFaces)",
            "minimumConfidence": "\(detection.minimumConfidence)",
            "suppressionThreshold": "\(detection.suppressionThreshold)",
            "wholePictureFallback": "\(detection.wholePictureFallback)",
            "maxProcessRate": text(maxProcessRate),
            "metrics": metrics.map(\.name).sorted().joined(separator: ","),
            "baseline": "\(baseline)",
            "landmarks": "\(landmarks)",
            "blendshapes": "\(blendshapes)",
            "detectionOnly": "\(detectionOnly)",
            "reidentification": reidentification.map {
                "window=\($0.window),threshold=\($0.threshold),samples=\($0.samples),decisionTime=\($0.decisionTime),"
                    + "maximumYaw=\($0.maximumYaw),maximumPitch=\($0.maximumPitch),"
                    + "minimumInterocularDistance=\($0.minimumInterocularDistance),minimumSharpness=\($0.minimumSharpness)"
            } ?? "off",
            "episodes": episodeDescription,
            "shotCutThreshold": text(shotCutThreshold),
        ]
    }

    /// `settings` and the run's (`RunSettings.settings`): everything that changes what a run's results hold.
    public func settings(run: RunSettings) -> [String: String] {
        settings.merging(run.settings) { own, _ in own }
    }

    /// The episode settings as text (watched metrics, thresholds, smoothing).
    private var episodeDescription: String {
        guard episodes.enabled else { return "off" }
        func text(_ options: EpisodeOptions) -> String {
            "on=\(options.on),off=\(options.off),min=\(options.minimumDuration),gap=\(options.mergeGap)"
        }
        let blinks = episodes.blinks
        var parts: [String] = ["metrics=" + (episodes.metrics.map { $0.sorted().joined(separator: "+") } ?? "on")]
        parts.append("default:" + text(episodes.defaults))
        for name in episodes.perMetric.keys.sorted() {
            if let options = episodes.perMetric[name] { parts.append(name + ":" + text(options)) }
        }
        let closure = text(blinks.closure)
        parts.append(
            "blinks:\(closure),max=\(blinks.maximumDuration),open=\(blinks.openBelow),window=\(blinks.rateWindow),"
                + "warmUp=\(blinks.rateWarmUp)")
        let smoothing = episodes.smoothing.map { "\($0)" } ?? "off"
        parts.append("smoothing=" + smoothing + (episodes.smoothScores ? ",scores" : ""))
        return parts.joined(separator: ";")
    }
}
