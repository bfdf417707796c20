public import MienCore

/// What the HTML report shows about one input, gathered frame by frame at bounded memory: the summary,
/// and per face the timelines of emotions, valence and engagement, its appearance and a thumbnail.
public struct InputReport: Sendable {
    /// One face of the input.
    public struct Face: Sendable {
        public var faceId: Int
        /// Metric name (Affdex spelling: emotion names, "valence", "engagement") to its timeline.
        public var timelines: [String: Timeline] = [:]
        /// A square picture of the face from its best frame (largest, preferably without quality flags).
        public var thumbnail: Frame?
        /// The latest appearance (already aggregated over the track by the detector).
        public var gender: Gender?
        public var age: AgeBracket?
        public var glasses: Bool?
        var thumbnailScore = 0.0
    }

    /// Side of the thumbnails, pixels.
    public static let thumbnailSize = 96
    /// A later frame replaces the thumbnail only when its score is this much higher (avoids re-cropping
    /// on every frame of a slow zoom).
    static let thumbnailImprovement = 1.15
    /// Metrics that get timelines.
    public static let timelineMetrics: [String] =
        Emotion.allCases.filter { $0 != .neutral }.map(\.rawValue) + ["valence", "engagement"]

    public let input: String
    public private(set) var summary: InputSummary
    /// The faces, by `faceId`.
    public private(set) var faces: [Int: Face] = [:]
    /// Seconds of the first and last frame seen.
    public private(set) var timeRange: ClosedRange<Double>?
    /// Set when the input did not finish normally ("interrupted", or the error).
    public var problem: String?

    private let timelineCapacity: Int

    /// - Parameter timelineCapacity: most points per timeline (see `Timeline`).
    public init(input: String, timelineCapacity: Int = 600) {
        self.input = input
        summary = InputSummary(input: input)
        self.timelineCapacity = timelineCapacity
    }

    /// Adds one frame's result; `frame` (its pixels, when the caller has them) feeds the thumbnails.
    public mutating func add(_ result: DetectorResult, frame: Frame?) {
        summary.add(result)
        let t = result.timestamp
        timeRange = timeRange.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
        for (id, faceResult) in result.faces ?? [:] {
            var face = faces[id] ?? Face(faceId: id)
            func record(_ name: String, _ value: Double?) {
                guard let value else { return }
                face.timelines[name, default: Timeline(capacity: timelineCapacity)].add(time: t, value: value)
            }
            for emotion in Emotion.allCases where emotion != .neutral {
                record(emotion.rawValue, faceResult.emotions?[emotion])
            }
            record("valence", faceResult.valence)
            record("engagement", faceResult.engagement)
            record("gazeYaw", faceResult.gaze?.yaw)
            record("gazePitch", faceResult.gaze?.pitch)
            face.gender = faceResult.gender ?? face.gender
            face.age = faceResult.age ?? face.age
            face.glasses = faceResult.glasses ?? face.glasses
            let score = faceResult.faceBounds.width * (faceResult.flags.isEmpty ? 2 : 1)
            if let frame, score > face.thumbnailScore * Self.thumbnailImprovement,
                let picture = try? frame.thumbnail(of: faceResult.faceBounds, size: Self.thumbnailSize)
            {
                face.thumbnail = picture
                face.thumbnailScore = score
            }
            faces[id] = face
        }
    }
}
