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
    private var capture: VideoCapture
    private let decoderThreads: Int
    private let maximumPixels: Int
    /// Whether the last `skip(through:at:)` found its frame by seeking (for tests and benchmarks).
    package private(set) var seekedLastSkip = false
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
        self.decoderThreads = decoderThreads
        self.maximumPixels = maximumPixels
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
    /// Goes on after frame `last` by seeking to the key frame at or before `timestamp` (frame `last`'s time).
    ///
    /// From the key frame it decodes forward to that frame without converting pixels; where the container cannot seek, or the frame
    /// is not found at that time (a stream without presentation times, or whose times do not increase), the
    /// file is opened again and every frame through `last` is decoded (not converted). Either way the frames
    /// after it get the indices and times a run that read them all gave them.
    package func skip(through last: Int, at timestamp: Double?) throws -> Int {
        seekedLastSkip = false
        if let timestamp, try seek(to: last, at: timestamp) {
            seekedLastSkip = true
            return last + 1
        }
        capture = try VideoCapture(file: name, maximumPixels: maximumPixels, decoderThreads: decoderThreads)
        framesRead = 0
        previousTimestamp = nil
        finished = false
        return try skipFrames(last + 1)
    }

    /// Seeks to frame `last` by its `timestamp`; false when it is not found there exactly.
    private func seek(to last: Int, at timestamp: Double) throws -> Bool {
        do {
            try capture.seek(toMilliseconds: timestamp * 1000, input: name)
            // A key frame every few seconds: a bound well above any encoder's interval.
            for _ in 0..<Self.longestSeekDecode {
                guard let milliseconds = try capture.skip(input: name) else { return false }
                let seconds = milliseconds / 1000
                if seconds == timestamp {
                    framesRead = last + 1
                    previousTimestamp = timestamp
                    return true
                }
                if seconds > timestamp { return false }
            }
            return false
        } catch {
            return false
        }
    }

    /// The most frames decoded after a seek to reach the frame sought (10 s at 60 fps).
    static let longestSeekDecode = 600

    /// Passes over the next `count` frames without converting their pixels: FFmpeg still decodes each (later
    /// frames are predicted from earlier ones), and their times are kept as `nextFrame()` would have.
    private func skipFrames(_ count: Int) throws -> Int {
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
