internal import CMienBridge
package import MienCore

/// Writes frames as an H.264 video with FFmpeg's libraries (the bridge's `FileEncoder`).
///
/// The encoder is x264 at a chosen speed preset, no look-ahead, so no frames are held back and memory stays
/// flat; where FFmpeg has no x264 (the tarball, image and wheel carry an LGPL FFmpeg), Cisco's OpenH264 at a
/// bit rate matched to the rate factor.
///
/// `VideoWriter` uses it for `.mp4`, `.mov` and `.mkv`. Frames of an odd width or height lose their last
/// column or row (4:2:0 video needs even sizes).
/// - Important: Not thread-safe; frames must all have the size given at creation.
package final class VideoEncoder {
    /// How Mien encodes a video: x264's speed preset and constant rate factor.
    package enum Speed: String, Sendable {
        /// For annotated videos written while analysing, to be watched: the least CPU (x264 "ultrafast")
        /// at x264's default quality (rate factor 23).
        case fastest = "ultrafast"
        /// For clips that will be analysed again (test and benchmark clips): "veryfast" at rate factor 18,
        /// which looks lossless, so a clip analyses like its source.
        case balanced = "veryfast"

        /// x264's constant rate factor, from 0 (lossless) to 51.
        package var quality: Int {
            switch self {
            case .fastest: 23
            case .balanced: 18
            }
        }
    }

    private let handle: OpaquePointer
    private let path: String
    /// Frame size in pixels, as given.
    package let width: Int
    package let height: Int

    /// Opens `path` for frames of `width` x `height` at `framesPerSecond`.
    /// - Throws: `.ioFailure` naming `path` when the file or the encoder cannot be opened.
    package init(path: String, width: Int, height: Int, framesPerSecond: Double, speed: Speed) throws {
        guard width >= 2, height >= 2 else {
            throw MienError(.invalidArgument, "a video needs frames of at least 2 x 2 pixels", input: path)
        }
        var opened: OpaquePointer? = nil
        try bridgeCall(input: path) {
            mien_video_encoder_open(
                path, framesPerSecond, Int32(clamping: width & ~1), Int32(clamping: height & ~1), speed.rawValue,
                Int32(clamping: speed.quality), &opened, $0)
        }
        guard let opened else { throw MienError(.internalFailure, "no encoder handle", input: path) }
        handle = opened
        self.path = path
        self.width = width
        self.height = height
    }

    deinit { mien_video_encoder_free(handle) }

    /// Encodes one frame.
    /// - Throws: `.invalidArgument` for a frame of another size; `.ioFailure` when it cannot be written.
    package func write(_ frame: Frame) throws {
        guard frame.width == width, frame.height == height else {
            throw MienError(
                .invalidArgument, "frame is \(frame.width)x\(frame.height), video is \(width)x\(height)", input: path)
        }
        try frame.pixels.withUnsafeBufferPointer { buffer in
            try bridgeCall(input: path) {
                mien_video_encoder_write(handle, buffer.baseAddress, Int32(frame.stride), $0)
            }
        }
    }

    /// Flushes the encoder and completes the file.
    /// - Throws: `.ioFailure` when the file cannot be completed (a full disk).
    package func finish() throws {
        try bridgeCall(input: path) { mien_video_encoder_finish(handle, $0) }
    }
}
