/// Detection, mesh, head pose and tracking in one object: the per-frame loop every Mien front end uses.
///
/// The running mode is fixed at creation: `.discreteImages` treats every frame as unrelated (each is
/// detected afresh, IDs count from 0 in each image, no events, no smoothing); `.stream` tracks faces
/// across frames of a video, a camera or related images.
///
/// ```swift
/// let analyzer = try FaceAnalyzer(mode: .stream, models: ModelStore())
/// let video = try VideoFileSource(path: "talk.mp4")
/// while let frame = try video.nextFrame() {
///     let result = try analyzer.analyze(frame)
///     for face in result.faces { print(face.faceId, face.pose?.yaw ?? .nan) }
/// }
/// ```
/// - Important: Not thread-safe; one stream per analyzer. In `.stream` mode timestamps must increase.
public final class FaceAnalyzer {
    /// How frames relate to each other.
    public enum RunningMode: String, Sendable, Codable {
        /// Unrelated pictures: every frame stands alone.
        case discreteImages
        /// Frames of one stream (video, camera, continuous images): faces are tracked.
        case stream
    }

    public let mode: RunningMode
    public let detection: DetectionOptions
    public let tracking: TrackingOptions
    private let tracker: FaceTracker
    private var counter = FaceCounter()
    private var lastTimestamp: Double?

    /// Loads the detector, mesh and face-geometry models (checksums verified).
    /// - Throws: `MienError` naming a missing or altered model.
    public init(
        mode: RunningMode, detection: DetectionOptions? = nil, tracking: TrackingOptions? = nil, models: ModelStore
    ) throws {
        self.mode = mode
        self.detection = try detection ?? DetectionOptions()
        self.tracking = try tracking ?? TrackingOptions()
        tracker = FaceTracker(
            options: self.tracking, maximumFaces: self.detection.maximumFaces,
            detector: try BlazeFaceDetector(options: self.detection, models: models),
            mesher: try FaceMeshEstimator(models: models),
            poseEstimator: HeadPoseEstimator(model: try CanonicalFaceModel(models: models)))
    }

    /// Builds an analyzer on stages the caller provides: fakes in tests, instrumented or alternative
    /// implementations elsewhere.
    public init(
        mode: RunningMode, detection: DetectionOptions, tracking: TrackingOptions, detector: any FaceDetecting,
        mesher: any FaceMeshEstimating, geometry: CanonicalFaceModel?
    ) {
        self.mode = mode
        self.detection = detection
        self.tracking = tracking
        tracker = FaceTracker(
            options: tracking, maximumFaces: detection.maximumFaces, detector: detector, mesher: mesher,
            poseEstimator: geometry.map(HeadPoseEstimator.init(model:)))
    }

    /// Analyses the next frame.
    /// - Throws: `.nonMonotonicTimestamp` in `.stream` mode when time does not advance; stage errors.
    public func analyze(_ frame: Frame) throws -> FrameAnalysis {
        switch mode {
        case .discreteImages:
            let faces = try tracker.analyseStill(frame)
            return FrameAnalysis(
                frameIndex: frame.index, timestamp: frame.timestamp, width: frame.width, height: frame.height,
                faces: faces, events: [], faceCount: nil, fullFrameDetection: true)
        case .stream:
            if let lastTimestamp, frame.timestamp <= lastTimestamp {
                throw MienError(
                    .nonMonotonicTimestamp,
                    "frame \(frame.index) at \(frame.timestamp) s is not after the previous frame (\(lastTimestamp) s)")
            }
            lastTimestamp = frame.timestamp
            let (faces, events) = try tracker.update(frame)
            let lost = events.contains { if case .lost = $0 { true } else { false } }
            let count = counter.update(count: faces.count, faceLost: lost, at: frame.timestamp)
            return FrameAnalysis(
                frameIndex: frame.index, timestamp: frame.timestamp, width: frame.width, height: frame.height,
                faces: faces, events: events, faceCount: count, fullFrameDetection: tracker.detectorRanOnLastFrame)
        }
    }

    /// Forgets all faces, IDs and timestamps (Affdex `reset`).
    public func reset() {
        tracker.reset()
        counter.reset()
        lastTimestamp = nil
    }
}
