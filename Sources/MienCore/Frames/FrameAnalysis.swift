/// What Mien saw in one frame: the faces, what changed, and the face-count stream.
public struct FrameAnalysis: Sendable {
    /// Position of the frame in its source, from 0.
    public var frameIndex: Int
    /// Seconds (see `Frame.timestamp`).
    public var timestamp: Double
    /// Frame size in pixels.
    public var width: Int
    public var height: Int
    /// The faces, ordered by `faceId`.
    public var faces: [TrackedFace]
    /// Faces found and lost on this frame (streams only; empty for discrete images).
    public var events: [FaceEvent]
    /// EnableX's face-count stream (streams only).
    public var faceCount: FaceCounter.Update?
    /// Whether the detector ran on the whole frame (EnableX `fullFrameDetection`); on other frames the
    /// faces come from tracking alone.
    public var fullFrameDetection: Bool

    public init(
        frameIndex: Int, timestamp: Double, width: Int, height: Int, faces: [TrackedFace], events: [FaceEvent],
        faceCount: FaceCounter.Update?, fullFrameDetection: Bool
    ) {
        self.frameIndex = frameIndex
        self.timestamp = timestamp
        self.width = width
        self.height = height
        self.faces = faces
        self.events = events
        self.faceCount = faceCount
        self.fullFrameDetection = fullFrameDetection
    }

    /// The face with the largest box (the subject of a portrait or a face crop), or nil without faces.
    public var largestFace: TrackedFace? { faces.max { $0.bounds.area < $1.bounds.area } }
}
