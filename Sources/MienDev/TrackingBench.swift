import Foundation
import Mien
import MienTesting

/// Decode + detect + mesh + pose + tracking throughput, one face and five, with per-stage times.
struct TrackingBench {
    let models: ModelStore
    let runs: Int

    /// A 1280 x 720 clip holding five copies of `source` (a 512 x 512 talking head) side by side, each
    /// scaled to 340 px, so the five-face cost can be compared with the one-face cost on the same faces.
    static func makeMosaic(from source: String, to output: String, frames: Int) throws {
        let video = try VideoFileSource(path: source)
        let writer = try VideoWriter(
            path: output, width: 1280, height: 720, framesPerSecond: video.info.framesPerSecond ?? 30)
        let tile = 340.0
        let scale = tile / 512
        let origins = [(20.0, 10.0), (470.0, 10.0), (920.0, 10.0), (245.0, 370.0), (695.0, 370.0)]
        var written = 0
        while written < frames, let frame = try video.nextFrame() {
            var canvas = [UInt8](repeating: 0, count: 1280 * 720 * 3)
            for origin in origins {
                let placed = try frame.warped(
                    by: .scale(scale, thenTranslate: origin.0, origin.1), width: 1280, height: 720)
                for y in Int(origin.1)..<Int(origin.1 + tile) {
                    let start = (y * 1280 + Int(origin.0)) * 3
                    canvas.replaceSubrange(
                        start..<start + Int(tile) * 3, with: placed.pixels[start..<start + Int(tile) * 3])
                }
            }
            try writer.write(Frame(width: 1280, height: 720, pixels: canvas))
            written += 1
        }
    }

    func measure(
        clip: String, label: String, faceMode: FaceMode, expressions: Bool = false, maximumFaces: Int = 5
    ) throws -> [String: Any] {
        var fps: [Double] = []
        var perStage: [String: Double] = [:]
        var faces = 0.0
        for _ in 0..<runs {
            let detection = try DetectionOptions(faceMode: faceMode, maximumFaces: maximumFaces)
            let detector = TimedDetector(try BlazeFaceDetector(options: detection, models: models))
            // The settings a Detector gives the mesh with and without a measuring stage.
            let mesher = TimedMesher(try FaceMeshEstimator(models: models, aloneInPipeline: !expressions))
            let blendshapes = TimedBlendshapes(try BlendshapeEstimator(models: models))
            // FaceAnalyzer, not a Detector: this reads the tracker's cost on its own, which a Detector run mixes with the others.
            let analyzer = FaceAnalyzer(
                mode: .video, detection: detection, tracking: try TrackingOptions(), detector: detector,
                mesher: mesher, geometry: try CanonicalFaceModel(models: models),
                expressions: expressions ? try ExpressionOptions() : nil, blendshapes: blendshapes)
            let source = PrefetchingFrameSource(try VideoFileSource.forAnalysis(path: clip))
            let clock = ContinuousClock()
            let start = clock.now
            var frames = 0
            var faceFrames = 0
            while let frame = try source.nextFrame() {
                faceFrames += try analyzer.analyze(frame).faces.count
                frames += 1
            }
            let seconds = (clock.now - start).milliseconds / 1000
            fps.append(Double(frames) / seconds)
            faces = Double(faceFrames) / Double(max(frames, 1))
            perStage = [
                "frame_ms": seconds * 1000 / Double(frames),
                "detect_ms_per_call": detector.clock.milliseconds / Double(max(detector.clock.calls, 1)),
                "detect_calls_per_100_frames": Double(detector.clock.calls) * 100 / Double(frames),
                "mesh_ms_per_face": mesher.clock.milliseconds / Double(max(mesher.clock.calls, 1)),
                "mesh_ms_per_frame": mesher.clock.milliseconds / Double(frames),
                "blendshapes_ms_per_face": blendshapes.clock.milliseconds / Double(max(blendshapes.clock.calls, 1)),
            ]
        }
        var row: [String: Any] = [
            "input": label, "fps": round3(Statistics.median(fps)), "faces_per_frame": round3(faces),
        ]
        for (key, value) in perStage { row[key] = round3(value) }
        // What is left of a frame's time: pose, smoothing, tracking logic, quality, expression mapping and
        // waiting for the decoder.
        row["other_ms_per_frame"] = round3(
            (perStage["frame_ms"] ?? 0) - (perStage["mesh_ms_per_frame"] ?? 0)
                - (perStage["blendshapes_ms_per_face"] ?? 0) * faces
                - (perStage["detect_ms_per_call"] ?? 0) * (perStage["detect_calls_per_100_frames"] ?? 0) / 100)
        return row
    }
}
