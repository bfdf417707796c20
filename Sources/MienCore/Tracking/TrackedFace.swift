/// A face followed over time, as one frame sees it.
package struct TrackedFace: Sendable, Equatable {
    /// Affdex's `faceId`: unique to this face for as long as it stays tracked; a face that is lost and
    /// found again gets a new one.
    ///
    /// Starts at 0 and counts up; `reset()` starts it again.
    package var faceId: Int
    /// The box around the mesh (or the detection, before the first mesh), frame pixels.
    package var bounds: Rect
    /// The detector's confidence when the face was found, or the mesh presence while tracked, 0...1.
    package var confidence: Double
    /// The (smoothed) mesh.
    package var mesh: FaceMesh
    /// Head orientation from the mesh, or nil when it could not be fitted.
    package var pose: HeadPose?
    /// The canonical-face fit `pose` was read from (the expression stage builds the frontal face from it
    /// instead of fitting the same mesh again).
    var poseFit: WeightedProcrustes.Fit?
    /// Brightness, size and framing of the face (set by the analyzer).
    package var quality: FaceQuality?
    /// Why this face's expressions, emoji and emotions may be wrong in this frame; empty when they can
    /// be trusted.
    ///
    /// The scores are reported either way (see `QualityFlag`).
    package var flags: [QualityFlag]
    /// MediaPipe's blendshapes, when the expression stage ran.
    package var blendshapes: Blendshapes?
    /// Affdex's expressions, when the expression stage ran.
    package var expressions: Expressions?
    /// The pose-normalised geometry the expression stage read (`FaceFeatures`), when it ran: for the metrics a
    /// catalog entry measures itself (`MeasuredFace`).
    package var features: FaceFeatures?
    /// Affdex's emoji, when the expression stage ran.
    package var emoji: EmojiScores?
    /// Emotions, valence and engagement, when emotions are enabled.
    package var emotions: Emotions?
    /// Gender, age and glasses, when appearance is enabled.
    package var appearance: Appearance?
    /// Where the person looks (`GazeEstimator`), nil when it cannot be measured.
    package var gaze: Gaze?

    package init(
        faceId: Int, bounds: Rect, confidence: Double, mesh: FaceMesh, pose: HeadPose?, quality: FaceQuality? = nil,
        flags: [QualityFlag] = [], blendshapes: Blendshapes? = nil, expressions: Expressions? = nil,
        emoji: EmojiScores? = nil, emotions: Emotions? = nil, appearance: Appearance? = nil
    ) {
        self.faceId = faceId
        self.bounds = bounds
        self.confidence = confidence
        self.mesh = mesh
        self.pose = pose
        self.quality = quality
        self.flags = flags
        self.blendshapes = blendshapes
        self.expressions = expressions
        self.emoji = emoji
        self.emotions = emotions
        self.appearance = appearance
    }
}

/// What changed in the set of tracked faces on one frame.
public enum FaceEvent: Sendable, Hashable {
    /// A new face (Affdex `didStartDetectingFace`).
    case found(faceId: Int)
    /// A face no longer seen (Affdex `didStopDetectingFace`).
    case lost(faceId: Int)
    /// A face seen before, lost, and now back under its old ID (re-identification, `Reidentifier`): a
    /// `found` that is a return.
    case returned(faceId: Int)
}
