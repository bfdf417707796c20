/// What a `Detector` reads, fixed at its creation (Affdex's CameraDetector, VideoFileDetector,
/// PhotoDetector, FrameDetector).
public enum DetectorSource: Sendable {
    /// A V4L2 camera by index ("0") or path ("/dev/video2"), at a requested capture size (0 = the
    /// camera's default). Live: frames the analysis cannot keep up with are dropped and reported.
    case camera(device: String, width: Int = 0, height: Int = 0)
    /// A video file, read as fast as it can be analysed; `finished` is reported at its end.
    case videoFile(path: String)
    /// Whatever `InputSource.open` finds at `path`, read as fast as it can be analysed, like a video file:
    /// a video (tracked), a picture (stands alone), or a folder of pictures in name order, unrelated
    /// (discrete) unless `imageInterval` gives the seconds between them (continuous: tracked). A picture
    /// of a folder that cannot be read is reported (`didSkip`) and the others go on. `finished` is reported
    /// at the end.
    case file(path: String, imageInterval: Double? = nil)
    /// Any `FrameSource` the caller opens (another decoder, a synthetic clip), read like a file: as fast as it
    /// can be analysed, every frame, `finished` at its end. Tracked, unless its kind is `.image`.
    case frames(name: String, open: @Sendable () throws -> any FrameSource)
    /// Unrelated pictures given one at a time with `process(_:)`: each stands alone.
    case discreteImages
    /// Related pictures (for example one per second) given with `process(_:)`: faces are tracked.
    case continuousImages
    /// Frames the caller pushes with `process(_:)`, with their own increasing timestamps: tracked.
    case pushedFrames
    /// A live source provided by the caller (a camera stand-in in tests, another capture API): treated
    /// like a camera.
    case liveSource(name: String, open: @Sendable () throws -> any FrameSource)

    /// Whether the detector reads frames itself on a background thread.
    var readsItself: Bool {
        switch self {
        case .camera, .videoFile, .file, .frames, .liveSource: true
        case .discreteImages, .continuousImages, .pushedFrames: false
        }
    }

    /// The input's name in results: the path, the camera device or the live source's name.
    var inputName: String? {
        switch self {
        case .camera(let device, _, _): "camera:\(device)"
        case .videoFile(let path), .file(let path, _): path
        case .liveSource(let name, _), .frames(let name, _): name
        case .discreteImages, .continuousImages, .pushedFrames: nil
        }
    }

    /// Whether frames arrive in real time (and may be dropped).
    var isLive: Bool {
        switch self {
        case .camera, .liveSource: true
        default: false
        }
    }

    /// Affdex's default processing rate for the source: 5 fps for cameras, every frame otherwise.
    var defaultProcessRate: Double? { isLive ? 5 : nil }
}
