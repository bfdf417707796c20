internal import CMienBridge
public import MienCore

/// Writes frames to a video file with OpenCV's FFmpeg encoder.
///
/// - Important: Not thread-safe; frames must all have the size given at creation.
public final class VideoWriter {
    private let handle: OpaquePointer
    private let path: String
    /// Frame width and height in pixels.
    public let width: Int
    public let height: Int

    /// Opens `path` for writing.
    ///
    /// The codec follows the extension: MPEG-4 Part 2 (`mp4v`) for `.mp4`,
    /// Motion JPEG for `.avi`, both of which Debian's FFmpeg encodes without extra packages.
    /// - Throws: `MienError` with code `.ioFailure` when no encoder could be opened.
    public init(path: String, width: Int, height: Int, framesPerSecond: Double) throws {
        let fourcc = path.lowercased().hasSuffix(".avi") ? "MJPG" : "mp4v"
        var out: OpaquePointer? = nil
        try bridgeCall(input: path) {
            mien_video_writer_open(
                path, fourcc, framesPerSecond, Int32(clamping: width), Int32(clamping: height), &out, $0)
        }
        guard let out else { throw MienError(.internalFailure, "no writer handle", input: path) }
        handle = out
        self.path = path
        self.width = width
        self.height = height
    }

    deinit { mien_video_writer_free(handle) }

    /// Appends one frame.
    /// - Throws: `.invalidArgument` when its size differs from the writer's.
    public func write(_ frame: Frame) throws {
        guard frame.width == width, frame.height == height else {
            throw MienError(
                .invalidArgument, "frame is \(frame.width)x\(frame.height), video is \(width)x\(height)", input: path)
        }
        try frame.pixels.withUnsafeBufferPointer { buffer in
            try bridgeCall(input: path) { mien_video_writer_write(handle, buffer.baseAddress, Int32(frame.stride), $0) }
        }
    }
}
