package import MienCore

/// The first half of `FaceAnalyzer`: finds faces and follows them (detection, mesh, head pose, tracking
/// and the face-count stream).
///
/// Split from `FaceMeasurer` so that the two halves can run on two threads: the mesh of frame n + 1 is
/// computed while frame n's expressions and emotions are. They share no state, and each keeps its own
/// per-stream memory, so each needs only its own frames in order.
///
/// - Important: Not thread-safe; one stream per locator. Tracked (`.video`, `.liveStream`), timestamps must increase.
package final class FaceLocator {
    /// Unrelated pictures or one tracked stream, fixed at creation.
    package let mode: RunningMode
    private let tracker: FaceTracker
    private var counter = FaceCounter()
    /// Still images: whether a picture without a detected face is read as one face crop.
    private let wholePictureFallback: Bool
    /// Streams: gives faces that come back their old IDs (nil: off, the tracker's IDs as they are).
    private let reidentifier: Reidentifier?
    /// Streams: the shot-cut detector (nil: cuts are not looked for).
    private var cuts: ShotCutDetector?

    /// A locator running `detector` and `mesher` on each frame, in `mode`.
    /// - Parameters:
    ///   - mode: unrelated pictures or one tracked stream.
    ///   - tracking: the tracker's settings.
    ///   - maximumFaces: the most faces followed at once.
    ///   - detector: finds faces in a frame.
    ///   - mesher: measures each face's mesh.
    ///   - poses: the head-pose fit, or nil for no pose.
    ///   - wholePictureFallback: `DetectionOptions.wholePictureFallback` (still images only).
    ///   - reidentifier: re-identification of returning faces (streams only), or nil (default) for none.
    ///     It publishes the face IDs when given (start it at the same `firstFaceId`); the tracker's are then
    ///     its internal track numbers.
    ///   - firstFaceId: the first face ID of a stream (a resumed run's `ResumePoint.nextFaceId`).
    ///   - cuts: streams: ends every face at a shot cut (nil: cuts are not looked for).
    package init(
        mode: RunningMode, tracking: TrackingOptions, maximumFaces: Int, detector: any FaceDetecting,
        mesher: any FaceMeshEstimating, poses: HeadPoseEstimator?, wholePictureFallback: Bool = false,
        reidentifier: Reidentifier? = nil, firstFaceId: Int = 0, cuts: ShotCutDetector? = nil
    ) {
        self.mode = mode
        self.cuts = mode.tracks ? cuts : nil
        self.wholePictureFallback = wholePictureFallback
        self.reidentifier = reidentifier
        tracker = FaceTracker(
            options: tracking, maximumFaces: maximumFaces, detector: detector, mesher: mesher, poseEstimator: poses,
            firstFaceId: reidentifier == nil ? firstFaceId : 0)
    }

    /// Finds (discrete images) or follows (streams) the faces of the next frame.
    /// - Throws: stage errors.
    package func locate(_ frame: Frame) throws -> FrameAnalysis {
        switch mode {
        case .image:
            return FrameAnalysis(
                frame: frame, faces: try tracker.analyseStill(frame, wholePictureFallback: wholePictureFallback),
                fullFrameDetection: true, isStream: false)
        case .video, .liveStream:
            // Time is checked once, where frames enter a `Detector` (`FrameInbox`); tools that call this
            // directly read sources whose time advances.
            let cut = cuts?.isCut(frame) ?? false
            var (faces, events) = try tracker.update(frame, afterCut: cut)
            // The count is of faces present, including a new face held back while it is being recognised.
            let lost = events.contains { if case .lost = $0 { true } else { false } }
            let count = counter.update(count: faces.count, faceLost: lost, at: frame.timestamp)
            if let reidentifier {
                (faces, events) = try reidentifier.resolve(faces: faces, events: events, in: frame)
            }
            var analysis = FrameAnalysis(
                frame: frame, faces: faces, events: events, faceCount: count,
                fullFrameDetection: tracker.detectorRanOnLastFrame, isStream: true)
            analysis.shotCut = cut
            return analysis
        }
    }

    /// What a stream's locator remembers between frames: the tracked faces with their IDs and filters, the
    /// face count, re-identification's gallery and the shot-cut detector's last frame.
    package struct State: Sendable, Codable {
        var tracker: FaceTracker.State
        var counter: FaceCounter
        var reidentifier: Reidentifier.State?
        var cuts: ShotCutDetector?
    }

    /// The state after the last located frame.
    package var snapshot: State {
        State(tracker: tracker.snapshot, counter: counter, reidentifier: reidentifier?.snapshot, cuts: cuts)
    }

    /// Goes on from `snapshot`, taken by a locator made with the same settings.
    /// - Throws: `.invalidArgument` when `snapshot` has re-identification or shot cuts and this locator not,
    ///   or the other way round.
    package func restore(_ snapshot: State) throws {
        guard (snapshot.reidentifier == nil) == (reidentifier == nil), (snapshot.cuts == nil) == (cuts == nil) else {
            throw MienError(.invalidArgument, "the snapshot's locator was made with other settings")
        }
        tracker.restore(snapshot.tracker)
        counter = snapshot.counter
        if let saved = snapshot.reidentifier { reidentifier?.restore(saved) }
        cuts = snapshot.cuts
    }

    /// Forgets all faces, IDs and timestamps.
    package func reset() {
        tracker.reset()
        reidentifier?.reset()
        counter.reset()
        cuts?.reset()
    }
}
