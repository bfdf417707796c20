/// What a `Detector` measures, how often, and what its results carry.
///
/// Validated at creation, and immutable: a value that passed the checks stays one that passes them. The
/// face-finding settings are a `DetectionOptions` (their defaults and checks live there and nowhere else); this
/// type adds the Affdex switches around them. How a run goes (frame limit, resume) is `RunSettings`.
public struct DetectorOptions: Sendable, Equatable {
    /// Face mode, most faces, minimum confidence and the whole-picture fallback (see `DetectionOptions`
    /// for each default and range).
    public let detection: DetectionOptions
    /// Most frames processed per second of the source's clock; the others are reported unprocessed
    /// (faces nil).
    ///
    /// nil means the source's default: 5 for cameras (Affdex's default), every frame for
    /// video files, images and pushed frames (a file is analysed, not watched).
    public let maxProcessRate: Double?
    /// The metrics to measure.
    ///
    /// Default none: results carry faces, bounds, points and orientation only.
    public let metrics: Set<Metric>
    /// The per-person expression baseline in streams (default on; see `NeutralBaseline`).
    public let baseline: Bool
    /// Whether each face also carries its 478 mesh points and the 68 points of the iBUG 300-W layout.
    ///
    /// Default off (a mesh is 478 × 3 numbers per face per frame).
    public let landmarks: Bool
    /// Whether each face also carries MediaPipe's 52 raw blendshape scores (0...1).
    ///
    /// Default off; on, the blendshape model runs even when no expression metric is asked for.
    public let blendshapes: Bool
    /// Whether only the face detector runs: boxes, confidence and six keypoints, no mesh, pose, tracking or
    /// metric.
    ///
    /// Default off. Not combinable with metrics, landmarks or blendshapes.
    public let detectionOnly: Bool
    /// Opt-in re-identification: in streams, a face that comes back within the window gets its old `faceId`,
    /// baseline and appearance averages (see `Reidentifier`; `DetectorResult.returned` names the returns).
    ///
    /// Default nil (off): faces are biometric data, and recognising them is a choice the user makes. On, a
    /// descriptor of each face is held in memory only, for the window, and never written to any output.
    public let reidentification: ReidentificationOptions?
    /// Streams: which metrics' episodes are found, with what thresholds, and whether scores are smoothed
    /// (`DetectorResult.episodes`, `FaceResult.blinkRate`).
    ///
    /// Default `EpisodeSettings.standard`: every scored metric that is on, and blinks when eye closure is on.
    public let episodes: EpisodeSettings
    /// Streams: the distance (0...1) between consecutive analysed frames at which a shot cut is found
    /// (`ShotCutDetector`); at a cut every face is lost, its episodes end (`cut`), and the faces of the new
    /// shot get new IDs (or, with `reidentification`, their old ones when recognised).
    ///
    /// Default `defaultShotCutThreshold`; nil looks for no cut (one continuous shot). Cameras and
    /// live sources, which drop frames when behind, are one shot: no cut is looked for in them.
    public let shotCutThreshold: Double?
    /// Where the screen the person watches lies, as seen from their seat (`onScreen` reads it).
    ///
    /// Default `ScreenGeometry.laptop`: a 14" laptop's screen below its camera.
    public let screen: ScreenGeometry
    /// The default `shotCutThreshold`, 0.12 (how it was chosen: `ShotCutDetector`).
    public static let defaultShotCutThreshold = ShotCutDetector.defaultThreshold

    /// Options with the face-finding settings given as a whole `DetectionOptions`.
    /// - Throws: `.invalidOptions` for out-of-range values, naming the option, and for a `.measured` metric
    ///   the catalog does not list.
    public init(
        detection: DetectionOptions, maxProcessRate: Double? = nil, metrics: Set<Metric> = [], baseline: Bool = true,
        landmarks: Bool = false, blendshapes: Bool = false, detectionOnly: Bool = false,
        reidentification: ReidentificationOptions? = nil,
        episodes: EpisodeSettings = .standard, shotCutThreshold: Double? = defaultShotCutThreshold,
        screen: ScreenGeometry = .laptop
    ) throws {
        let unknown = metrics.filter { MetricCatalog.entry(for: $0) == nil }.map { "\($0)" }.sorted()
        if !unknown.isEmpty {
            throw MienError(
                .invalidOptions,
                "metrics the catalog does not list: \(unknown.joined(separator: ", ")) (`mien metrics` lists them)")
        }
        let unmeasured = episodes.unmeasured(given: metrics)
        if !unmeasured.isEmpty {
            throw MienError(
                .invalidOptions,
                "episodes are watched for metrics that are off: \(unmeasured.joined(separator: ", ")) "
                    + "(turn them on, or watch others; blinks need eye closure)")
        }
        if let shotCutThreshold, !(shotCutThreshold > 0 && shotCutThreshold <= 1) {
            throw MienError(.invalidOptions, "shotCutThreshold must be in 0...1 (above 0), got \(shotCutThreshold)")
        }
        if let maxProcessRate, !(maxProcessRate > 0 && maxProcessRate.isFinite) {
            throw MienError(.invalidOptions, "maxProcessRate must be a positive number of frames per second")
        }
        if detectionOnly && reidentification != nil {
            throw MienError(.invalidOptions, "detectionOnly does not track faces, so it cannot re-identify them")
        }
        if detectionOnly && (!metrics.isEmpty || landmarks || blendshapes) {
            throw MienError(
                .invalidOptions, "detectionOnly measures nothing beyond boxes: no metrics, landmarks or blendshapes")
        }
        self.detection = detection
        self.maxProcessRate = maxProcessRate
        self.metrics = metrics
        self.baseline = baseline
        self.landmarks = landmarks
        self.blendshapes = blendshapes
        self.detectionOnly = detectionOnly
        self.reidentification = reidentification
        self.episodes = episodes
        self.shotCutThreshold = shotCutThreshold
        self.screen = screen
    }

    /// The Affdex-style initializer: the detection settings by name, with `DetectionOptions`' defaults.
    /// - Throws: `.invalidOptions` for out-of-range values, naming the option.
    public init(
        maximumFaces: Int = DetectionOptions.defaultMaximumFaces, faceMode: FaceMode = .large,
        minimumConfidence: Double = DetectionOptions.defaultMinimumConfidence, maxProcessRate: Double? = nil,
        metrics: Set<Metric> = [], baseline: Bool = true, wholePictureFallback: Bool = true
    ) throws {
        try self.init(
            detection: DetectionOptions(
                faceMode: faceMode, maximumFaces: maximumFaces, minimumConfidence: minimumConfidence,
                wholePictureFallback: wholePictureFallback),
            maxProcessRate: maxProcessRate, metrics: metrics, baseline: baseline)
    }

    /// Most faces tracked at once (`detection.maximumFaces`).
    public var maximumFaces: Int { detection.maximumFaces }
    /// Affdex `LARGE_FACES` or `SMALL_FACES` (`detection.faceMode`).
    public var faceMode: FaceMode { detection.faceMode }

    /// Whether any metric needs the expression stage: the catalog's expression metrics (its own measured ones
    /// among them) and the emotions, which are fused with the expressions; so do raw blendshapes.
    var needsExpressions: Bool { blendshapes || needsEmotions || stages.contains(.expressions) }

    /// Whether any metric needs the emotion CNN: the catalog's emotions group (emotions, valence, engagement).
    var needsEmotions: Bool { metrics.contains { MetricCatalog.entry(for: $0)?.group == .emotions } }

    /// Whether any metric needs the appearance networks: the catalog's appearance group.
    var needsAppearance: Bool { metrics.contains { MetricCatalog.entry(for: $0)?.group == .appearance } }

    /// Whether a stream measures what needs a face's recent frames (`ViewerActivity`): eye closure is on, or the
    /// mouth's opening (`mouthOpen` and `jawDrop`).
    var measuresActivity: Bool {
        metrics.contains(.expression(.eyeClosure))
            || (metrics.contains(.expression(.mouthOpen)) && metrics.contains(.expression(.jawDrop)))
    }

    /// The stages the catalog names for the metrics asked for.
    private var stages: Set<MetricDescriptor.Stage> { Set(metrics.compactMap { MetricCatalog.entry(for: $0)?.stage }) }
}
