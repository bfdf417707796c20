public import MienCore

/// A frame whose faces have been found and followed, not yet measured: the hand-over between
/// `FaceLocator` and `FaceMeasurer`.
///
/// A value, so it can cross from the thread that locates frame n + 1 to the one measuring frame n.
public struct LocatedFrame: Sendable {
    /// The frame itself (its pixels are shared, not copied).
    public var frame: Frame
    /// Faces with mesh, pose and tracking, ordered by `faceId`; no quality, expressions or affect yet.
    public var faces: [TrackedFace]
    /// Faces found and lost on this frame (streams only).
    public var events: [FaceEvent]
    /// EnableX's face-count stream (streams only).
    public var faceCount: FaceCounter.Update?
    /// Whether the detector ran on the whole frame.
    public var fullFrameDetection: Bool
    /// Whether the frame belongs to a stream (faces keep state between frames) or stands alone.
    public var isStream: Bool
}
