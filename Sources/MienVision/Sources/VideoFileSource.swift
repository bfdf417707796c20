import Foundation
public import MienCore

/// The frames of a video file, decoded by FFmpeg.
///
/// Timestamps are the container's presentation times in seconds, strictly increasing: a damaged stream
/// can repeat or lose a frame's time, so a time that does not advance is replaced by the previous one
/// plus one frame interval. When the stream ends more than `truncationTolerance` frames before the
/// count its container announced, `nextFrame()` throws `.truncatedStream` once (every frame before the
/// damage has already been returned), then returns nil.
public final class VideoFileSource: FrameSource {
    public let name: String
    public let info: SourceInfo
    private let capture: VideoCapture
    private var framesRead = 0
    private var finished = false
    private var previousTimestamp: Double?

    /// Containers estimate their frame count from duration x rate, which can be off by a frame or two
    /// on a healthy file; a shortfall beyond this many frames (or 2 %) is reported as truncation.
    public static let truncationTolerance = 2

    /// Threads FFmpeg's decoder gets when faces are analysed beside it: the cores the analysis leaves,
    /// at least one.
    ///
    /// The analysis keeps two cores busy (the locating and measuring stages, the mesh on up to
    /// `FaceMeshEstimator.lanes` threads), and FFmpeg's own choice (one thread per core and one more) made
    /// its frame threads compete with them. On the 2-core machine, 720p talking head, every metric, six
    /// alternating rounds (`MienDev peer-bench`): 187 fps and 286-297 MB peak with FFmpeg's choice,
    /// 185 fps and 279-281 MB with one thread, and with OpenVINO's thread pinning off as well
    /// (`InferenceSettings`) 193 against 208 fps. Decoding alone is slower on one thread (377 against
    /// 544-571 fps), which is why a source decoding for nothing else keeps FFmpeg's choice.
    public static let analysisDecoderThreads = max(1, ProcessInfo.processInfo.activeProcessorCount - 2)

    /// Opens the video.
    /// - Parameters:
    ///   - maximumPixels: videos whose frames are larger are refused (the still-image limit by default).
    ///   - decoderThreads: threads FFmpeg's decoder uses; 0 (default): FFmpeg's choice, one per core and
    ///     one more. `analysisDecoderThreads` when faces are analysed beside the decoding.
    /// - Throws: `.notFound` for a missing file, `.corruptData` for one FFmpeg cannot open.
    public init(path: String, maximumPixels: Int = ImageLimits.maximumPixels, decoderThreads: Int = 0) throws {
        _ = try ImageDecoder.readableRegularFile(path)
        capture = try VideoCapture(file: path, maximumPixels: maximumPixels, decoderThreads: decoderThreads)
        name = path
        info = SourceInfo(
            kind: .video, width: capture.width, height: capture.height,
            framesPerSecond: capture.framesPerSecond > 0 ? capture.framesPerSecond : nil,
            frameCount: capture.announcedFrameCount > 0 ? capture.announcedFrameCount : nil)
    }

    /// Opens the video to analyse its faces: decoded on `analysisDecoderThreads` threads.
    /// - Throws: as `init(path:maximumPixels:decoderThreads:)`.
    public static func forAnalysis(path: String) throws -> VideoFileSource {
        try VideoFileSource(path: path, decoderThreads: analysisDecoderThreads)
    }

    public func nextFrame() throws -> Frame? {
        guard !finished else { return nil }
        let read: (pixels: [UInt8], milliseconds: Double)?
        do {
            read = try capture.read(input: name)
        } catch {
            finished = true
            throw error
        }
        guard let read else {
            finished = true
            if let announced = info.frameCount {
                let allowed = max(Self.truncationTolerance, announced / 50)
                if framesRead + allowed < announced {
                    throw MienError(
                        .truncatedStream,
                        "video ended after \(framesRead) of the \(announced) frames its container announces (truncated or damaged)",
                        input: name)
                }
            }
            return nil
        }
        defer { framesRead += 1 }
        return try Frame(
            width: capture.width, height: capture.height, pixels: read.pixels,
            timestamp: timestamp(milliseconds: read.milliseconds), index: framesRead)
    }

    /// The frame's time in seconds, strictly after the previous frame's (see the type's documentation).
    private func timestamp(milliseconds: Double) -> Double {
        let interval = 1 / (info.framesPerSecond ?? 30)
        var seconds = milliseconds.isFinite && milliseconds >= 0 ? milliseconds / 1000 : 0
        if let previous = previousTimestamp, seconds <= previous { seconds = previous + interval }
        previousTimestamp = seconds
        return seconds
    }
}

extension VideoFileSource: SkippingFrameSource {
    /// Passes over frames without converting their pixels: FFmpeg still decodes each (later frames are predicted
    /// from earlier ones), and their times are kept as `nextFrame()` would have, so the frames after them get
    /// the same indices and times as in a run that read them all.
    public func skipFrames(_ count: Int) throws -> Int {
        var skipped = 0
        while skipped < count, !finished {
            guard let milliseconds = try capture.skip(input: name) else {
                finished = true
                break
            }
            _ = timestamp(milliseconds: milliseconds)
            framesRead += 1
            skipped += 1
        }
        return skipped
    }
}
