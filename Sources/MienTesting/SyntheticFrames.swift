public import Mien
import MienCore

/// A frame source of plain grey frames, numbered and timed like a video (or like the pictures of a
/// folder), with scripted read failures: input for `DetectorSource.frames` in tests without files.
public final class SyntheticFrames: FrameSource {
    public let name: String
    public let info: SourceInfo
    private let count: Int
    private let failing: Set<Int>
    private let stalled: Set<Int>
    private var next = 0

    /// - Parameters:
    ///   - count: frames before the end.
    ///   - kind: `.video` (frames 1 / `framesPerSecond` apart) or `.imageFolder` (a read failure is
    ///     followed by the next picture, as a folder's bad image is).
    ///   - failing: indices whose read throws `.corruptData` instead of returning a frame.
    ///   - stalled: indices whose frame has the previous frame's timestamp (a stream whose clock stalls).
    public init(
        name: String = "synthetic", count: Int, kind: SourceKind = .video, width: Int = 320, height: Int = 240,
        framesPerSecond: Double = 30, failing: Set<Int> = [], stalled: Set<Int> = []
    ) {
        self.name = name
        self.count = count
        self.failing = failing
        self.stalled = stalled
        info = SourceInfo(
            kind: kind, width: width, height: height, framesPerSecond: framesPerSecond, frameCount: count)
    }

    public func nextFrame() throws -> Frame? {
        guard next < count else { return nil }
        let index = next
        next += 1
        if failing.contains(index) {
            throw MienError(.corruptData, "scripted failure", input: "\(name) frame \(index)")
        }
        let width = info.width ?? 320
        let height = info.height ?? 240
        return try Frame(
            width: width, height: height, pixels: [UInt8](repeating: 128, count: width * height * Frame.channels),
            timestamp: Double(stalled.contains(index) ? index - 1 : index) / (info.framesPerSecond ?? 30), index: index)
    }
}

/// A `ResultWriter` that keeps everything it is told, for tests of the plumbing.
///
/// Written by the run's threads and read by the test, at any time: what it keeps is behind a lock.
public final class RecordingWriter: ResultWriter, Sendable {
    private struct Kept {
        var info: SourceInfo?
        var results: [DetectorResult] = []
        var closingEpisodes: [EpisodeEvent] = []
        var framesGiven: [Bool] = []
        var unreadableErrors: [MienError] = []
        var ends: [InputEnd] = []
        var failures: [MienError] = []
    }
    private let kept = Locked(Kept())
    public let wantsFrames: Bool
    /// Throw on the write of this frame index (a full disk, a closed socket).
    private let failAt: Int?

    public init(wantsFrames: Bool = false, failAt frameIndex: Int? = nil) {
        self.wantsFrames = wantsFrames
        failAt = frameIndex
    }

    public var info: SourceInfo? { kept.withLock { $0.info } }
    public var results: [DetectorResult] { kept.withLock { $0.results } }
    /// The episodes still open when the input ended, finished by the run (`finishEpisodes`).
    public var closingEpisodes: [EpisodeEvent] { kept.withLock { $0.closingEpisodes } }
    /// Whether each write came with the frame's pixels.
    public var framesGiven: [Bool] { kept.withLock { $0.framesGiven } }
    public var unreadableErrors: [MienError] { kept.withLock { $0.unreadableErrors } }
    public var ends: [InputEnd] { kept.withLock { $0.ends } }
    public var failures: [MienError] { kept.withLock { $0.failures } }

    public func begin(_ info: SourceInfo) throws { kept.withLock { $0.info = info } }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        if result.frameIndex == failAt { throw MienError(.ioFailure, "scripted write failure", input: "recording") }
        kept.withLock {
            $0.results.append(result)
            $0.framesGiven.append(frame != nil)
        }
    }

    public func unreadable(_ error: MienError) { kept.withLock { $0.unreadableErrors.append(error) } }
    public func finishEpisodes(_ episodes: [EpisodeEvent]) throws { kept.withLock { $0.closingEpisodes += episodes } }
    public func finish(_ end: InputEnd) throws { kept.withLock { $0.ends.append(end) } }
    public func fail(_ error: MienError) { kept.withLock { $0.failures.append(error) } }
}
