package import MienCore

/// The second half of `FaceAnalyzer`: measures located faces (quality, flags, expressions and emoji,
/// emotions, appearance).
///
/// Keeps per-face memory in streams (neutral baselines, appearance aggregates), keyed by face ID and
/// dropped as soon as a face is no longer in a located frame, or, with re-identification, kept for
/// `retention` seconds in case the face comes back under its old ID.
///
/// - Important: Not thread-safe; one stream per measurer, frames in the order they were located.
package final class FaceMeasurer {
    private let gazeEstimator = GazeEstimator()
    /// Options of the expression stage, or nil when it does not run.
    package var expressions: ExpressionOptions? { expressionStage?.options }
    private let expressionStage: ExpressionStage?
    private let affectStage: AffectStage?
    private let limits: ReliabilityLimits
    /// Seconds a lost face's memory is kept for its return (the re-identification window), or nil.
    package let retention: Double?

    /// A measurer running the given stages on every located face.
    /// - Parameters:
    ///   - expressionStage: expressions and emoji, or nil.
    ///   - affectStage: emotions and appearance, or nil.
    ///   - retention: seconds a lost face's baseline and appearance are kept (re-identification's
    ///     window); nil (default) forgets them when the face is lost.
    package init(expressionStage: ExpressionStage?, affectStage: AffectStage?, retention: Double? = nil) {
        self.expressionStage = expressionStage
        self.affectStage = affectStage
        self.retention = retention
        limits = expressionStage?.options.limits ?? .standard
    }

    /// Whether the emotion / appearance stage runs.
    package var runsAffectStage: Bool { affectStage != nil }

    /// Measures every face of a frame `FaceLocator.locate` returned.
    package func measure(_ located: FrameAnalysis) throws -> FrameAnalysis {
        let frame = located.frame
        if located.isStream {
            // Before measuring: a face back under its old ID finds its baseline where it left it.
            let ids = Set(located.faces.map(\.faceId))
            expressionStage?.keep(only: ids, at: frame.timestamp, retainingFor: retention)
            affectStage?.keep(only: ids, at: frame.timestamp, retainingFor: retention)
        }
        var measured = located
        measured.faces = try located.faces.map { try measure($0, in: frame, stream: located.isStream) }
        return measured
    }

    private func measure(_ face: TrackedFace, in frame: Frame, stream: Bool) throws -> TrackedFace {
        var face = face
        let quality = FaceQuality(mesh: face.mesh, in: frame)
        face.quality = quality
        face.flags = limits.flags(pose: face.pose, quality: quality)
        // Cheap (a few mesh points): measured for every face, so `attention` and the `gaze` metric read the
        // same numbers.
        face.gaze = face.pose.flatMap { gazeEstimator.gaze(mesh: face.mesh, pose: $0) }
        face = try expressionStage?.measure(face, in: frame, stream: stream) ?? face
        return try affectStage?.measure(face, in: frame, stream: stream) ?? face
    }

    /// What the measurer remembers per face between frames: neutral baselines, emotion windows and
    /// appearance aggregates.
    package struct State: Sendable, Codable {
        var baselines: PerFaceMemory<NeutralBaseline>?
        var affect: AffectStage.State?
    }

    /// The state after the last measured frame.
    package var snapshot: State { State(baselines: expressionStage?.snapshot, affect: affectStage?.snapshot) }

    /// Goes on from `snapshot`, taken by a measurer made with the same settings.
    /// - Throws: `.invalidArgument` when the snapshot's stages are not this measurer's.
    package func restore(_ snapshot: State) throws {
        guard (snapshot.baselines == nil) == (expressionStage == nil), (snapshot.affect == nil) == (affectStage == nil)
        else {
            throw MienError(.invalidArgument, "the snapshot's measurer was made with other settings")
        }
        if let baselines = snapshot.baselines { expressionStage?.restore(baselines) }
        if let affect = snapshot.affect { affectStage?.restore(affect) }
    }

    /// The neutral baseline every face new to the stream starts from (nil: empty); see
    /// `ExpressionStage.startingBaseline`.
    package func start(from baseline: NeutralBaseline.Carried?) { expressionStage?.startingBaseline = baseline }

    /// The neutral baseline learnt longest among the faces remembered (nil: none, or no expressions measured).
    package var longestBaseline: NeutralBaseline.Carried? { expressionStage?.longestBaseline }

    /// Forgets baselines and appearance aggregates.
    package func reset() {
        expressionStage?.reset()
        affectStage?.reset()
    }
}
