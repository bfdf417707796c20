import Foundation
import Mien
import MienCore

/// `MienDev soak`'s source: a clip played over and over, re-decoded every pass, as one recording `seconds` long
/// (its frames numbered and timed on one continuous timeline, as a 30-minute recording's would be).
final class LoopedClip: FrameSource {
    let name: String
    let info: SourceInfo
    private let path: String
    private let seconds: Double
    private let rate: Double
    /// Passes begun, the one playing included (read by the command after the run).
    private let passes: Locked<Int>
    private var source: VideoFileSource
    private var frames = 0
    private var framesThisPass = 0

    /// - Throws: `MienError` when the clip cannot be opened.
    init(path: String, seconds: Double, passes: Locked<Int>) throws {
        let source = try VideoFileSource(path: path)
        self.source = source
        self.path = path
        self.seconds = seconds
        self.passes = passes
        name = path
        rate = source.info.framesPerSecond ?? 30
        info = SourceInfo(kind: .video, width: source.info.width, height: source.info.height, framesPerSecond: rate)
        passes.withLock { $0 = 1 }
    }

    /// The next frame; nil once the frame at or after `seconds` has been given.
    /// - Throws: `MienError` when the clip cannot be read or reopened, or has no frame.
    func nextFrame() throws -> Frame? {
        guard frames == 0 || Double(frames - 1) / rate < seconds else { return nil }
        while true {
            if var frame = try source.nextFrame() {
                frame.timestamp = Double(frames) / rate
                frame.index = frames
                frames += 1
                framesThisPass += 1
                return frame
            }
            // A clip with no frame would be reopened for ever.
            guard framesThisPass > 0 else { throw MienError(.unreadable, "the clip has no frame", input: path) }
            source = try VideoFileSource(path: path)
            framesThisPass = 0
            passes.withLock { $0 += 1 }
        }
    }
}

/// `MienDev soak`'s writer: each result encoded as a JSON line and dropped (as an output would cost), and every
/// `every` seconds of video the frames/s and resident memory since the last line, printed as they come.
final class SoakWriter: ResultWriter, Sendable {
    private struct State {
        let encoder = JSONEncoder()
        let sink = FileHandle(forWritingAtPath: "/dev/null")
        var frames = 0
        var bytes = 0
        var videoTime = 0.0
        var window = (start: ContinuousClock.now, frames: 0)
        var nextReport: Double
        var samples: [[String: Double]] = []
    }

    /// Fed by the run's one writing thread: the lock is never waited on; it makes the writer `Sendable`.
    private let state: Locked<State>
    private let every: Double
    private let total: Double

    /// - Parameters:
    ///   - every: seconds of video between report lines.
    ///   - total: seconds of video in all (the last line is printed at it).
    init(every: Double, total: Double) {
        self.every = every
        self.total = total
        state = Locked(State(nextReport: every))
    }

    /// Frames written, bytes of JSON lines, the last frame's time (s) and the report lines' figures.
    var measured: (frames: Int, bytes: Int, videoTime: Double, samples: [[String: Double]]) {
        state.withLock { ($0.frames, $0.bytes, $0.videoTime, $0.samples) }
    }

    /// The first window starts as the run begins (the models loaded), not when the writer was made.
    func begin(_ info: SourceInfo) throws { state.withLock { $0.window = (ContinuousClock.now, 0) } }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        let (every, total) = (every, total)
        let sample = try state.withLock { state -> [String: Double]? in
            let line = try state.encoder.encode(result)
            state.bytes += line.count
            try state.sink?.write(contentsOf: line)
            state.frames += 1
            state.window.frames += 1
            state.videoTime = result.timestamp
            guard state.videoTime >= state.nextReport || state.videoTime >= total else { return nil }
            let seconds = (ContinuousClock.now - state.window.start).milliseconds / 1000
            let sample = [
                "videoMinutes": (state.videoTime / 60).rounded(toPlaces: 2),
                "framesPerSecond": (Double(state.window.frames) / seconds).rounded(toPlaces: 1),
                "rssMB": MemoryUse.residentMegabytes.rounded(toPlaces: 1),
            ]
            state.samples.append(sample)
            state.window = (ContinuousClock.now, 0)
            state.nextReport += every
            return sample
        }
        if let sample {
            Soak.say(
                "video \(sample["videoMinutes"] ?? 0) min: \(sample["framesPerSecond"] ?? 0) frames/s, RSS \(sample["rssMB"] ?? 0) MB"
            )
        }
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
