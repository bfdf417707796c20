internal import CMienBridge
package import MienCore

/// Writes frames to a video file: H.264 through FFmpeg's libraries (`VideoEncoder`) for `.mp4`, `.mov` and
/// `.mkv`, Motion JPEG through OpenCV for `.avi`.
///
/// - Important: Not thread-safe; frames must all have the size given at creation.
package final class VideoWriter {
    /// The OpenCV writer's handle (`.avi`), or nil when `encoder` writes.
    private let handle: OpaquePointer?
    private let encoder: VideoEncoder?
    private let path: String
    /// Frame width and height in pixels.
    package let width: Int
    package let height: Int

    /// Opens `path` for writing.
    ///
    /// The codec follows the extension: H.264 (what browsers and players expect; MPEG-4 Part 2 when
    /// FFmpeg has no libx264) for `.mp4`, `.mov` and `.mkv`, at `speed` (x264's preset and rate factor),
    /// and Motion JPEG for `.avi` (through OpenCV; `speed` does not apply).
    /// - Throws: `MienError` with code `.ioFailure` when no encoder could be opened.
    package init(
        path: String, width: Int, height: Int, framesPerSecond: Double, speed: VideoEncoder.Speed = .balanced
    ) throws {
        self.path = path
        self.width = width
        self.height = height
        guard path.lowercased().hasSuffix(".avi") else {
            encoder = try VideoEncoder(
                path: path, width: width, height: height, framesPerSecond: framesPerSecond, speed: speed)
            handle = nil
            return
        }
        var opened: OpaquePointer? = nil
        try bridgeCall(input: path) {
            mien_video_writer_open(
                path, "MJPG", framesPerSecond, Int32(clamping: width), Int32(clamping: height), &opened, $0)
        }
        guard let opened else { throw MienError(.internalFailure, "no writer handle", input: path) }
        handle = opened
        encoder = nil
    }

    deinit {
        if let handle { mien_video_writer_free(handle) }
    }

    /// Appends one frame.
    /// - Throws: `.invalidArgument` when its size differs from the writer's; `.ioFailure` when it cannot be
    ///   written.
    package func write(_ frame: Frame) throws {
        if let encoder { return try encoder.write(frame) }
        guard frame.width == width, frame.height == height else {
            throw MienError(
                .invalidArgument, "frame is \(frame.width)x\(frame.height), video is \(width)x\(height)", input: path)
        }
        guard let handle else { return }
        try frame.pixels.withUnsafeBufferPointer { buffer in
            try bridgeCall(input: path) { mien_video_writer_write(handle, buffer.baseAddress, Int32(frame.stride), $0) }
        }
    }

    /// Completes the file (an H.264 file's last frames and index); without it, releasing the writer does
    /// the same but cannot report a failure.
    /// - Throws: `.ioFailure` when the file cannot be completed.
    package func finish() throws { try encoder?.finish() }
}
