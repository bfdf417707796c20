import ArgumentParser
import Foundation
import Mien
import MienCore
import MienTesting

/// `MienDev peer-bench`: Mien's side of `make bench-peers`, printed as one JSON line.
///
/// One clip and one mode per process, so peak RSS belongs to that mode: Mien's decode alone, Mien with
/// every metric, or Mien with mesh, pose and tracking only.
struct PeerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peer-bench", abstract: "Mien's side of make bench-peers (one clip, one mode, JSON line).")

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case decode, all, mesh
    }

    @Option(help: "The clip.") var clip: String
    @Option(help: "decode: read frames only; all: every metric; mesh: mesh, pose and tracking only.")
    var mode: Mode
    @Option(help: "Runs; the median frames/s is reported.") var runs = 3
    @Option(help: "Most faces tracked.") var faces = 1

    func run() throws {
        let models = try ModelStore()
        var rates: [Double] = []
        var facesPerFrame = 0.0
        var stages: [String: Any] = [:]
        for _ in 0..<runs {
            let (frames, found, seconds) = try once(models: models)
            rates.append(Double(frames) / seconds)
            facesPerFrame = Double(found) / Double(max(frames, 1))
        }
        if mode == .mesh {
            // Per-stage times from the timed pipeline (one extra run).
            let row = try TrackingBench(models: models, runs: 1).measure(
                clip: clip, label: clip, faceMode: .large, maximumFaces: faces)
            for key in ["detect_ms_per_call", "detect_calls_per_100_frames", "mesh_ms_per_face", "other_ms_per_frame"] {
                stages[key] = row[key]
            }
        }
        var line: [String: Any] = [
            "clip": clip, "mode": "mien-\(mode.rawValue)", "fps": (Statistics.median(rates) * 10).rounded() / 10,
            "faces_per_frame": (facesPerFrame * 100).rounded() / 100,
            "peak_rss_mb": MemoryUse.peakResidentMegabytes.rounded(toPlaces: 1),
        ]
        if !stages.isEmpty { line["stages"] = stages }
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// One pass over the clip: frames read, faces seen and seconds taken (after the models are loaded,
    /// as the MediaPipe side is timed after its graph is built).
    private func once(models: ModelStore) throws -> (Int, Int, Double) {
        let clock = ContinuousClock()
        if mode == .decode {
            let source = try VideoFileSource(path: clip)
            let start = clock.now
            var frames = 0
            while try source.nextFrame() != nil { frames += 1 }
            return (frames, 0, (clock.now - start).milliseconds / 1000)
        }
        let options = try DetectorOptions(maximumFaces: faces, metrics: mode == .all ? .all : [])
        let detector = Detector(source: .videoFile(path: clip), options: options, models: models)
        let counter = ResultCounter()
        let run = try DevRun.start(detector, into: counter)
        let start = clock.now
        try DevRun.end(run)
        let seconds = (clock.now - start).milliseconds / 1000
        return (counter.frames, counter.faces, seconds)
    }
}

/// Counts a run's results (keeping none, so that peak RSS is the analysis's).
private final class ResultCounter: ResultWriter, Sendable {
    /// Written by the run's writing thread, read after the run ended.
    private let counts = Locked((frames: 0, faces: 0))
    var frames: Int { counts.withLock { $0.frames } }
    var faces: Int { counts.withLock { $0.faces } }
    func write(_ result: DetectorResult, frame: Frame?) throws {
        counts.withLock {
            $0.frames += 1
            $0.faces += result.faces?.count ?? 0
        }
    }
    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
