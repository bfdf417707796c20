/// What Mien saw in one frame: the faces, what changed, and the face-count stream.
///
/// The one value between the two halves of the analysis: `FaceLocator` makes it with faces found and
/// followed (mesh, pose, IDs), and `FaceMeasurer` returns it with the same faces measured (quality,
/// expressions, emotions, appearance). A value, so it can cross from the thread that locates frame n + 1
/// to the one measuring frame n.
package struct FrameAnalysis: Sendable {
    /// The frame itself (its pixels are shared, not copied).
    package var frame: Frame
    /// The faces, ordered by `faceId`.
    package var faces: [TrackedFace]
    /// Faces found, lost and returned on this frame, in the order they happened (streams only; empty for
    /// discrete images).
    package var events: [FaceEvent]
    /// EnableX's face-count stream (streams only).
    package var faceCount: FaceCounter.Update?
    /// Whether the detector ran on the whole frame (EnableX `fullFrameDetection`); on other frames the
    /// faces come from tracking alone.
    package var fullFrameDetection: Bool
    /// Whether the frame belongs to a stream (faces keep state between frames) or stands alone.
    package var isStream: Bool
    /// Whether a shot cut comes before this frame (streams only; `ShotCutDetector`): every face tracked before
    /// it was lost on it.
    package var shotCut = false

    package init(
        frame: Frame, faces: [TrackedFace], events: [FaceEvent] = [], faceCount: FaceCounter.Update? = nil,
        fullFrameDetection: Bool, isStream: Bool
    ) {
        self.frame = frame
        self.faces = faces
        self.events = events
        self.faceCount = faceCount
        self.fullFrameDetection = fullFrameDetection
        self.isStream = isStream
    }

    /// Position of the frame in its source, from 0.
    package var frameIndex: Int { frame.index }
    /// Seconds (see `Frame.timestamp`).
    package var timestamp: Double { frame.timestamp }
    /// Frame size in pixels.
    package var width: Int { frame.width }
    package var height: Int { frame.height }

    /// The face with the largest box (the subject of a portrait or a face crop), or nil without faces.
    package var largestFace: TrackedFace? { faces.max { $0.bounds.area < $1.bounds.area } }
}
