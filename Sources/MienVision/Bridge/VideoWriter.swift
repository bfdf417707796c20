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
    /// The codec follows the extension: H.264 (`avc1`, what browsers and players expect) for `.mp4`,
    /// falling back to MPEG-4 Part 2 (`mp4v`) when no H.264 encoder is installed, and Motion JPEG for
    /// `.avi`. Debian's FFmpeg provides all three.
    /// - Throws: `MienError` with code `.ioFailure` when no encoder could be opened.
    public init(path: String, width: Int, height: Int, framesPerSecond: Double) throws {
        let codecs = path.lowercased().hasSuffix(".avi") ? ["MJPG"] : ["avc1", "mp4v"]
        var opened: OpaquePointer? = nil
        var lastError: (any Error)? = nil
        for fourcc in codecs where opened == nil {
            do {
                try bridgeCall(input: path) {
                    mien_video_writer_open(
                        path, fourcc, framesPerSecond, Int32(clamping: width), Int32(clamping: height), &opened, $0)
                }
            } catch {
                lastError = error
            }
        }
        guard let opened else {
            throw lastError ?? MienError(.internalFailure, "no writer handle", input: path)
        }
        handle = opened
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
