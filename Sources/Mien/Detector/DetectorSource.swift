/// What a `Detector` reads, fixed at its creation (Affdex's CameraDetector, VideoFileDetector,
/// PhotoDetector, FrameDetector): where its frames come from, and its `RunningMode`.
///
/// Every frame, whoever reads it, goes through the detector's one inbox (see `Detector.push(_:)`); what
/// happens when the inbox is full is the running mode's: `.liveStream` drops the oldest frame, the others wait.
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
    /// detector's thread. In `.video` mode it is read like a file (every frame, `finished` at its end); in
    /// `.liveStream` like a camera; in `.image` every frame stands alone. Tracked (`.video`, `.liveStream`)
    /// unless its kind is `.image` or an unrelated folder.
    case source(name: String, mode: RunningMode, open: @Sendable () throws -> any FrameSource)
    /// Frames the caller hands over with `push(_:)` or `process(_:)`, numbered from 0 in the order given.
    case pushed(name: String? = nil, mode: RunningMode)

    /// A video file (Affdex's VideoFileDetector); the same as `.file(path:)`.
    public static func videoFile(path: String) -> DetectorSource { .file(path: path) }
    /// A source read like a file.
    public static func frames(
        name: String, open: @escaping @Sendable () throws -> any FrameSource
    ) -> DetectorSource {
        .source(name: name, mode: .video, open: open)
    }
    /// A source read like a camera (a camera stand-in in tests, another capture API).
    public static func liveSource(
        name: String, open: @escaping @Sendable () throws -> any FrameSource
    ) -> DetectorSource {
        .source(name: name, mode: .liveStream, open: open)
    }
    /// Unrelated pictures given one at a time (Affdex's PhotoDetector).
    public static var discreteImages: DetectorSource { .pushed(mode: .image) }
    /// Related pictures (for example one per second) given one at a time: faces are tracked.
    public static var continuousImages: DetectorSource { .pushed(mode: .video) }
    /// Frames with their own increasing timestamps (Affdex's FrameDetector): tracked, none dropped.
    public static var pushedFrames: DetectorSource { .pushed(mode: .video) }

    /// Whether shot cuts are looked for (`DetectorOptions.shotCutThreshold`): in recorded material analysed
    /// whole (files, folders, pushed frames that wait for room), not in live feeds that drop frames when
    /// behind (cameras, live sources): a live feed is one continuous shot, where a light switched on would
    /// otherwise end every face.
    var findsShotCuts: Bool { !isLive }

    /// The input's name in results: the path, the camera device or the source's name.
    var inputName: String? {
        switch self {
        case .camera(let device, _, _): "camera:\(device)"
        case .file(let path, _): path
        case .source(let name, _, _): name
        case .pushed(let name, _): name
        }
    }

    /// The mode the source was made with: what its inbox does when full (`.liveStream` drops).
    var declaredMode: RunningMode {
        switch self {
        case .camera: .liveStream
        case .file: .video
        case .source(_, let mode, _), .pushed(_, let mode): mode
        }
    }

    /// Whether frames arrive in real time (and may be dropped).
    var isLive: Bool { declaredMode.dropsWhenBehind }

    /// Affdex's default processing rate for the source: 5 fps for live sources, every frame otherwise.
    var defaultProcessRate: Double? { isLive ? 5 : nil }

    /// The mode the analysis runs in once the source is open: `.image` for pictures that stand alone,
    /// the declared mode otherwise.
    ///
    /// `kind` is what the opened source says it is, nil for pushed frames. The one place this is decided.
    func mode(of kind: SourceKind?) -> RunningMode {
        switch (self, kind) {
        case (.pushed(_, let mode), _): return mode
        case (_, .image): return .image
        case (.file(_, let interval), .imageFolder): return interval == nil ? .image : .video
        default: return declaredMode
        }
    }
}
