public import MienCore

/// A V4L2 camera (`/dev/videoN`).
///
/// Timestamps are seconds since the source was opened, taken when each frame is read. Opening a device
/// that does not exist fails at once with `.notFound`; one that exists but cannot capture fails with
/// `.deviceUnavailable`. A camera unplugged mid-stream makes `nextFrame()` throw.
public final class CameraSource: FrameSource {
    public let name: String
    public let info: SourceInfo
    private let capture: VideoCapture
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var index = 0

    /// The device node for a camera index: `/dev/video<index>`.
    public static func devicePath(index: Int) -> String { "/dev/video\(index)" }

    /// Opens a camera.
    /// - Parameters:
    ///   - device: a device path such as `/dev/video0`.
    ///   - width, height: requested capture size in pixels (0 keeps the camera's default).
    ///   - framesPerSecond: requested rate (0 keeps the default).
    public init(device: String, width: Int = 0, height: Int = 0, framesPerSecond: Double = 0) throws {
        capture = try VideoCapture(camera: device, width: width, height: height, framesPerSecond: framesPerSecond)
        name = device
        info = SourceInfo(
            kind: .camera, width: capture.width, height: capture.height,
            framesPerSecond: capture.framesPerSecond > 0 ? capture.framesPerSecond : nil)
        start = clock.now
    }

    public func nextFrame() throws -> Frame? {
        guard let read = try capture.read(input: name) else {
            throw MienError(.deviceUnavailable, "the camera stopped delivering frames (unplugged or busy)", input: name)
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        defer { index += 1 }
        return try Frame(
            width: capture.width, height: capture.height, pixels: read.pixels, timestamp: seconds, index: index)
    }
}
