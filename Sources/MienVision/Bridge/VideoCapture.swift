internal import CMienBridge
import MienCore

/// Owns one `mien_video`: a file decoded by FFmpeg or a V4L2 camera.
final class VideoCapture {
    private let handle: OpaquePointer
    let width: Int
    let height: Int
    let framesPerSecond: Double
    let announcedFrameCount: Int

    /// Opens a video file whose frames have at most `maximumPixels` pixels, decoded on `decoderThreads`
    /// threads (0: FFmpeg's choice).
    init(file path: String, maximumPixels: Int, decoderThreads: Int) throws {
        var out: OpaquePointer? = nil
        var info = mien_video_info()
        try bridgeCall(input: path) {
            mien_video_open_file(path, Int64(maximumPixels), Int32(clamping: max(0, decoderThreads)), &out, &info, $0)
        }
        guard let out else { throw MienError(.internalFailure, "no video handle", input: path) }
        handle = out
        (width, height) = (Int(info.width), Int(info.height))
        framesPerSecond = info.fps.isFinite && info.fps > 0 ? info.fps : 0
        announcedFrameCount = Int(info.frame_count)
    }

    /// Opens a camera device node such as `/dev/video0`.
    init(camera device: String, width: Int, height: Int, framesPerSecond: Double) throws {
        var out: OpaquePointer? = nil
        var info = mien_video_info()
        try bridgeCall(input: device, openFailure: .deviceUnavailable) {
            mien_video_open_camera(
                device, Int32(clamping: width), Int32(clamping: height), framesPerSecond, &out, &info, $0)
        }
        guard let out else { throw MienError(.internalFailure, "no camera handle", input: device) }
        handle = out
        (self.width, self.height) = (Int(info.width), Int(info.height))
        self.framesPerSecond = info.fps.isFinite && info.fps > 0 ? info.fps : 0
        announcedFrameCount = 0
    }

    deinit { mien_video_free(handle) }

    /// Decodes the next frame.
    /// - Returns: the BGR pixels and the presentation time in milliseconds, or nil at the end.
    func read(input: String) throws -> (pixels: [UInt8], milliseconds: Double)? {
        let capacity = width * height * Frame.channels
        var milliseconds = 0.0
        var status = MIEN_OK
        var failure: (any Error)? = nil
        let pixels = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            do {
                status = try bridgeStatus(input: input, accept: [MIEN_ERR_END_OF_STREAM.rawValue]) {
                    mien_video_read(handle, buffer.baseAddress, capacity, &milliseconds, $0)
                }
                count = status == MIEN_OK ? capacity : 0
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return status == MIEN_OK ? (pixels, milliseconds) : nil
    }

    /// Moves a file to the key frame at or before `milliseconds` (stream time, as `read` reports it).
    /// - Throws: `.decodeFailed`-like bridge errors when the container cannot seek.
    func seek(toMilliseconds milliseconds: Double, input: String) throws {
        try bridgeCall(input: input) { mien_video_seek(handle, milliseconds, $0) }
    }

    /// Passes over the next frame of a file: decoded, not converted (a resumed run's frames already analysed).
    /// - Returns: its presentation time in milliseconds, or nil at the end.
    func skip(input: String) throws -> Double? {
        var milliseconds = 0.0
        let status = try bridgeStatus(input: input, accept: [MIEN_ERR_END_OF_STREAM.rawValue]) {
            mien_video_skip(handle, &milliseconds, $0)
        }
        return status == MIEN_OK ? milliseconds : nil
    }
}
