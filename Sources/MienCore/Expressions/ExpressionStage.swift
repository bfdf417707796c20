/// The expression stage: blendshapes, the 21 expressions, the per-person baseline and the 14 emoji for
/// every tracked face of a frame.
///
/// Runs after tracking (it reads the smoothed mesh and pose). In streams each `faceId` keeps its own
/// `NeutralBaseline`, learnt only from frames without quality flags and forgotten when the face is
/// lost (kept for its return with re-identification); discrete images are scored against population norms.
///
/// - Important: Not thread-safe; one stream per stage.
package final class ExpressionStage {
    package let options: ExpressionOptions
    private let estimator: any BlendshapeEstimating
    private let poses: HeadPoseEstimator
    private let mapper = ExpressionMapper()
    private let emojiMapper = EmojiMapper()
    private var baselines = PerFaceMemory<NeutralBaseline>()

    /// Each face's neutral baseline (the stage's memory between frames), for a resumed run.
    package var snapshot: PerFaceMemory<NeutralBaseline> { baselines }

    /// Goes on from `snapshot`.
    package func restore(_ snapshot: PerFaceMemory<NeutralBaseline>) { baselines = snapshot }

    /// The baseline every face new to this stream starts from (a study participant's, learnt at their framing
    /// check), instead of an empty one; nil: empty.
    package var startingBaseline: NeutralBaseline.Carried?

    /// The baseline learnt from the longest reliable observation among the faces remembered, carried; nil when none
    /// has been observed.
    package var longestBaseline: NeutralBaseline.Carried? {
        baselines.states.filter { $0.observed > 0 }.max { $0.observed < $1.observed }?.carried
    }

    package init(options: ExpressionOptions, blendshapes: any BlendshapeEstimating, poses: HeadPoseEstimator) {
        self.options = options
        estimator = blendshapes
        self.poses = poses
    }

    /// Adds blendshapes, expressions and emoji to `face` (whose `quality`, `flags` and `gaze` are set:
    /// `attention` reads that gaze, head pose alone without it) seen in `frame`.
    ///
    /// In a `stream` the face's baseline learns from it (unless flagged) and is applied.
    package func measure(_ face: TrackedFace, in frame: Frame, stream: Bool) throws -> TrackedFace {
        // The tracker already fitted the canonical face to this (smoothed) mesh; fit only faces built elsewhere.
        let fitted: (pose: HeadPose, fit: WeightedProcrustes.Fit)?
        if let pose = face.pose, let fit = face.poseFit {
            fitted = (pose, fit)
        } else {
            fitted = poses.fit(points: face.mesh.points)
        }
        guard let fitted, let frontal = HeadPoseEstimator.frontal(points: face.mesh.points, fit: fitted.fit) else {
            return face
        }
        let pose = fitted.pose
        var face = face
        let blendshapes = try estimator.blendshapes(points: face.mesh.points)
        let features = FaceFeatures(face: frontal)
        var expressions = mapper.expressions(blendshapes: blendshapes, features: features, pose: pose, gaze: face.gaze)
        if stream, let baselineOptions = options.baseline {
            var baseline =
                baselines[face.faceId] ?? startingBaseline.map {
                    NeutralBaseline(options: baselineOptions, carried: $0)
                }
                ?? NeutralBaseline(options: baselineOptions)
            if face.flags.isEmpty { baseline.observe(expressions, at: frame.timestamp) }
            baselines[face.faceId] = baseline
            expressions = baseline.apply(to: expressions)
            if !baseline.settled { face.flags.append(.settling) }
        }
        let tongue = TongueEvidence.score(mesh: face.mesh, in: frame, hasColour: face.quality?.hasColour ?? false)
        face.blendshapes = blendshapes
        face.features = features
        face.expressions = expressions
        face.emoji = emojiMapper.emoji(expressions: expressions, tongue: tongue)
        return face
    }

    /// Keeps the baselines of `faceIds` (the frame's faces, before they are measured); see
    /// `PerFaceMemory.keep(only:at:retainingFor:)`.
    package func keep(only faceIds: Set<Int>, at time: Double, retainingFor retention: Double?) {
        baselines.keep(only: faceIds, at: time, retainingFor: retention)
    }

    /// Forgets every baseline.
    package func reset() { baselines.reset() }
}
