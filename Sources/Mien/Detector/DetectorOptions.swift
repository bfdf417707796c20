/// What a `Detector` measures and how often.
///
/// Validated at creation.
public struct DetectorOptions: Sendable, Equatable {
    /// Most faces tracked at once.
    ///
    /// Default 1, as Affdex's detectors.
    public var maximumFaces: Int
    /// Affdex `LARGE_FACES` (default) or `SMALL_FACES`.
    public var faceMode: FaceMode
    /// Most frames processed per second of the source's clock; the others are reported unprocessed
    /// (faces nil).
    ///
    /// nil means the source's default: 5 for cameras (Affdex's default), every frame for
    /// video files, images and pushed frames (a file is analysed, not watched).
    public var maxProcessRate: Double?
    /// The metrics to measure.
    ///
    /// Default none: results carry faces, bounds, points and orientation only.
    public var metrics: Set<Metric>
    /// The per-person expression baseline in streams (default on; see `NeutralBaseline`).
    public var baseline: Bool
    /// Discrete images only: whether a picture with no detected face is read as one face crop.
    ///
    /// Default off. The face is kept when the mesh finds one in the whole picture (see
    /// `DetectionOptions.wholePictureFallback`). For data sets of tight face crops such as FER-2013's.
    public var wholePictureFallback: Bool

    /// - Throws: `.invalidOptions` for fewer than 1 face or a rate that is not a positive number.
    public init(
        maximumFaces: Int = 1, faceMode: FaceMode = .large, maxProcessRate: Double? = nil, metrics: Set<Metric> = [],
        baseline: Bool = true, wholePictureFallback: Bool = false
    ) throws {
        guard maximumFaces >= 1 else { throw MienError(.invalidOptions, "maximumFaces must be at least 1") }
        if let maxProcessRate, !(maxProcessRate > 0 && maxProcessRate.isFinite) {
            throw MienError(.invalidOptions, "maxProcessRate must be a positive number of frames per second")
        }
        self.maximumFaces = maximumFaces
        self.faceMode = faceMode
        self.maxProcessRate = maxProcessRate
        self.metrics = metrics
        self.baseline = baseline
        self.wholePictureFallback = wholePictureFallback
    }

    /// Whether any metric needs the expression stage (expressions, emoji and emotions do).
    var needsExpressions: Bool {
        metrics.contains {
            switch $0 {
            case .expression, .emoji, .emotion, .valence, .engagement: true
            case .gender, .age, .glasses: false
            }
        }
    }

    /// Whether any metric needs the emotion CNN.
    var needsEmotions: Bool {
        metrics.contains {
            switch $0 {
            case .emotion, .valence, .engagement: true
            default: false
            }
        }
    }

    /// Whether any metric needs the appearance networks.
    var needsAppearance: Bool { !metrics.isDisjoint(with: Set<Metric>.allAppearance) }
}
