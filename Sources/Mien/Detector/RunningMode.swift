/// How a detector's frames relate in time and what happens when the analysis falls behind: the one running
/// mode, fixed when the `Detector` (or a `FaceAnalyzer`) is made, with MediaPipe Tasks' three cases.
///
/// Sources that say what they read set it themselves: a camera is `.liveStream`, a video file `.video`, a
/// picture or a folder of unrelated pictures `.image`; pushed frames and sources of yours name theirs.
public enum RunningMode: Sendable {
    /// Unrelated pictures: each stands alone (faces found afresh, no IDs kept, timestamps not compared), and
    /// every one is analysed (whoever gives them waits for room).
    case image
    /// Frames of one scene with increasing timestamps (a video, pictures a second apart): faces are tracked
    /// and keep their IDs, and every frame is analysed (whoever gives them waits for room).
    case video
    /// A live feed (a camera, a socket): tracked as `.video`, but when the analysis falls behind, the oldest
    /// waiting frame is dropped and reported unprocessed in its place, so that latency stays bounded.
    case liveStream

    /// Whether faces are followed from frame to frame (and timestamps must increase).
    var tracks: Bool { self != .image }

    /// Whether a full inbox drops its oldest frame rather than making the producer wait.
    var dropsWhenBehind: Bool { self == .liveStream }
}
