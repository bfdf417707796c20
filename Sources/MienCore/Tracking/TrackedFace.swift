/// A face followed over time, as one frame sees it.
public struct TrackedFace: Sendable, Equatable {
    /// Affdex's `faceId`: unique to this face for as long as it stays tracked; a face that is lost and
    /// found again gets a new one.
    ///
    /// Starts at 0 and counts up; `reset()` starts it again.
    public var faceId: Int
    /// The box around the mesh (or the detection, before the first mesh), frame pixels.
    public var bounds: Rect
    /// The detector's confidence when the face was found, or the mesh presence while tracked, 0...1.
    public var confidence: Double
    /// The (smoothed) mesh.
    public var mesh: FaceMesh
    /// Head orientation from the mesh, or nil when it could not be fitted.
    public var pose: HeadPose?

    public init(faceId: Int, bounds: Rect, confidence: Double, mesh: FaceMesh, pose: HeadPose?) {
        self.faceId = faceId
        self.bounds = bounds
        self.confidence = confidence
        self.mesh = mesh
        self.pose = pose
    }
}

/// What changed in the set of tracked faces on one frame.
public enum FaceEvent: Sendable, Equatable {
    /// A new face (Affdex `didStartDetectingFace`).
    case found(faceId: Int)
    /// A face no longer seen (Affdex `didStopDetectingFace`).
    case lost(faceId: Int)
}
