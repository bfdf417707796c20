/// What a `Detector` reads, fixed at its creation (Affdex's CameraDetector, VideoFileDetector,
/// PhotoDetector, FrameDetector): where its frames come from, and for pushed frames how they are timed.
///
/// Every frame, whoever reads it, goes through the detector's one inbox (see `Detector.push(_:)`); what
/// happens when the inbox is full is the source's `InboxPolicy`.
public enum DetectorSource: Sendable {
    /// A V4L2 camera by index ("0") or path ("/dev/video2"), at a requested capture size (0 = the
    /// camera's default). Live: frames the analysis cannot keep up with are dropped and reported.
    case camera(device: String, width: Int = 0, height: Int = 0)
    /// Whatever `InputSource.open` finds at `path`, read as fast as it can be analysed: a video (tracked),
    /// a picture (stands alone), or a folder of pictures in name order, unrelated (discrete) unless
    /// `imageInterval` gives the seconds between them (continuous: tracked). A picture of a folder that
    /// cannot be read is reported (`couldNotRead`) and the others go on. `finished` is reported at the end.
    case file(path: String, imageInterval: Double? = nil)
    /// Any `FrameSource` the caller opens (another decoder, a synthetic clip, a capture API), read on the
    /// detector's thread. With `.block` it is read like a file (every frame, `finished` at its end); with
    /// `.dropOldest` like a camera. Tracked, unless its kind is `.image` or an unrelated folder.
    case source(name: String, whenFull: InboxPolicy, open: @Sendable () throws -> any FrameSource)
    /// Frames the caller hands over with `push(_:)` or `process(_:)`, numbered from 0 in the order given.
    case pushed(name: String? = nil, timing: Timing, whenFull: InboxPolicy = .block)

    /// How pushed frames relate to each other in time.
    ///
    /// The one running mode of the analysis: the stages (`FaceAnalyzer`, `FaceLocator`) take it as it is.
    public enum Timing: Sendable {
        /// Frames of one scene with increasing timestamps (a video, a camera, pictures a second apart):
        /// faces are tracked and keep their IDs.
        case stream
        /// Unrelated pictures: each stands alone, timestamps are not compared.
        case stills
    }

    /// A video file (Affdex's VideoFileDetector); the same as `.file(path:)`.
    public static func videoFile(path: String) -> DetectorSource { .file(path: path) }
    /// A source read like a file.
    public static func frames(
        name: String, open: @escaping @Sendable () throws -> any FrameSource
    ) -> DetectorSource {
        .source(name: name, whenFull: .block, open: open)
    }
    /// A source read like a camera (a camera stand-in in tests, another capture API).
    public static func liveSource(
        name: String, open: @escaping @Sendable () throws -> any FrameSource
    ) -> DetectorSource {
        .source(name: name, whenFull: .dropOldest, open: open)
    }
    /// Unrelated pictures given one at a time (Affdex's PhotoDetector).
    public static var discreteImages: DetectorSource { .pushed(timing: .stills) }
    /// Related pictures (for example one per second) given one at a time: faces are tracked.
    public static var continuousImages: DetectorSource { .pushed(timing: .stream) }
    /// Frames with their own increasing timestamps (Affdex's FrameDetector): tracked, none dropped.
    public static var pushedFrames: DetectorSource { .pushed(timing: .stream) }

    /// Whether shot cuts are looked for (`DetectorOptions.shotCutThreshold`): in recorded material analysed
    /// whole (files, folders, pushed frames that wait for room), not in live feeds that drop frames when
    /// behind (cameras, live sources): a live feed is one continuous shot, where a light switched on would
    /// otherwise end every face.
    var findsShotCuts: Bool { policy == .block }

    /// The input's name in results: the path, the camera device or the source's name.
    var inputName: String? {
        switch self {
        case .camera(let device, _, _): "camera:\(device)"
        case .file(let path, _): path
        case .source(let name, _, _): name
        case .pushed(let name, _, _): name
        }
    }

    /// What the inbox does when it is full.
    var policy: InboxPolicy {
        switch self {
        case .camera: .dropOldest
        case .file: .block
        case .source(_, let policy, _), .pushed(_, _, let policy): policy
        }
    }

    /// Whether frames arrive in real time (and may be dropped).
    var isLive: Bool { policy == .dropOldest }

    /// Affdex's default processing rate for the source: 5 fps for live sources, every frame otherwise.
    var defaultProcessRate: Double? { isLive ? 5 : nil }

    /// Whether the frames are tracked as one stream (videos, cameras, continuous pictures) or stand alone.
    ///
    /// `kind` is what the opened source says it is, nil for pushed frames. The one place this is decided.
    func timing(of kind: SourceKind?) -> Timing {
        switch (self, kind) {
        case (.pushed(_, let timing, _), _): return timing
        case (_, .image): return .stills
        case (.file(_, let interval), .imageFolder): return interval == nil ? .stills : .stream
        default: return .stream
        }
    }
}

/// What a `Detector`'s inbox does with a frame that arrives when it is full.
public enum InboxPolicy: Sendable {
    /// The producer waits for room: every frame is analysed (files, folders, pushed videos).
    case block
    /// The oldest waiting frame is dropped and reported as an unprocessed result in its place (cameras,
    /// live streams): latency stays bounded when analysis falls behind.
    case dropOldest
}
