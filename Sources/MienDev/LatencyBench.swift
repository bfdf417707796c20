import Foundation
import Mien
import MienCore
import MienTesting

/// Camera-mode latency: a stand-in camera delivers the sample clip at 30 fps in real time to a `Detector`
/// with every metric on; latency is the time from a frame's arrival to its result.
struct LatencyBench {
    let models: ModelStore

    /// A camera stand-in that paces frames at `framesPerSecond` and records when each one arrived.
    final class PacedCamera: FrameSource {
        let name = "paced camera"
        let info: SourceInfo
        private let clip: PanAndZoomClip
        private let arrivals: Arrivals
        private var next = 0
        private let start = ContinuousClock.now

        init(clip: PanAndZoomClip, arrivals: Arrivals) {
            self.clip = clip
            self.arrivals = arrivals
            info = SourceInfo(
                kind: .camera, width: clip.width, height: clip.height, framesPerSecond: clip.framesPerSecond)
        }

        func nextFrame() throws -> Frame? {
            guard next < clip.frameCount else { return nil }
            let frame = try clip.frame(at: next)
            let due = start + .milliseconds(Int(Double(next) * 1000 / clip.framesPerSecond))
            if due > ContinuousClock.now {
                Thread.sleep(forTimeInterval: Double((due - ContinuousClock.now).milliseconds) / 1000)
            }
            arrivals.mark(next, at: ContinuousClock.now)
            next += 1
            return frame
        }
    }

    /// Arrival and result instants by frame index, shared between the camera and the run's writer.
    final class Arrivals: ResultWriter, Sendable {
        /// Written by the camera thread and the run's writing thread.
        private let state = Locked(State())

        private struct State {
            var arrived: [Int: ContinuousClock.Instant] = [:]
            var latencies: [Double] = []
            var skipped = 0
        }

        func mark(_ index: Int, at instant: ContinuousClock.Instant) { state.withLock { $0.arrived[index] = instant } }

        func write(_ result: DetectorResult, frame: Frame?) throws {
            let now = ContinuousClock.now
            state.withLock { state in
                guard result.processed else {
                    state.skipped += 1
                    return
                }
                if let start = state.arrived[result.frameIndex] { state.latencies.append((now - start).milliseconds) }
            }
        }

        func finish(_ end: InputEnd) throws {}
        func fail(_ error: MienError) {}

        var measured: (latencies: [Double], skipped: Int) { state.withLock { ($0.latencies, $0.skipped) } }

        /// Results seen so far.
        var reported: Int { state.withLock { $0.latencies.count + $0.skipped } }
    }

    func run(seconds: Int = 6) throws -> [String: Any] {
        let clip = try SampleMedia.astronautClip(width: 1280, height: 720, frameCount: 30 * seconds)
        let arrivals = Arrivals()
        let detector = Detector(
            source: .liveSource(name: "paced camera", open: { PacedCamera(clip: clip, arrivals: arrivals) }),
            options: try DetectorOptions(metrics: .all), models: models)
        let run = try DevRun.start(detector, into: arrivals)
        // Real time: wait for every frame's result (with a generous deadline), then stop.
        let deadline = ContinuousClock.now + .seconds(seconds * 3 + 10)
        while arrivals.reported < clip.frameCount, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try DevRun.end(run, stopping: true)
        let frames = arrivals.reported
        let (latencies, skipped) = arrivals.measured
        print("camera latencies (ms, in order): " + latencies.map { String(format: "%.1f", $0) }.joined(separator: " "))
        return [
            "input_fps": 30, "frames": frames, "processed": latencies.count, "unprocessed": skipped,
            "latency_ms_p50": round3(Statistics.median(latencies)),
            "latency_ms_p99": round3(Statistics.quantile(latencies, 0.99)),
        ]
    }
}
