import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev bench`: decode-only versus decode + detect throughput on a 720p clip and on the sample.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure decode-only and decode + face-detection speed (median of runs).")

    @Option(help: "Frames in the synthetic 720p clip.") var frames = 300
    @Option(help: "Runs per measurement; the median is reported.") var runs = 3
    @Option(help: "Folder for the generated clip.") var workDirectory = ".build/bench"
    @Option(help: "OpenCV threads (0 = Mien's default).") var threads = 0

    func run() throws {
        if threads > 0 { setOpenCVThreads(threads) }
        let models = try ModelStore()
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        var clips: [(label: String, path: String)] = []
        let synthetic = "\(workDirectory)/astronaut-1280x720-\(frames)-h264.mp4"
        if !FileManager.default.fileExists(atPath: synthetic) {
            try SampleMedia.astronautClip(width: 1280, height: 720, frameCount: frames).write(to: synthetic)
        }
        clips.append(("sample pan 720p", synthetic))
        if let eval = SampleMedia.evaluationDirectory {
            // The real talking head (H.264, 512 x 512) letterboxed to 1280 x 720, as issue 8 measures it.
            let talking = eval.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
            let upscaled = "\(workDirectory)/talking-head-1280x720.mp4"
            if FileManager.default.fileExists(atPath: talking), !FileManager.default.fileExists(atPath: upscaled) {
                try Letterboxed.transcode(input: talking, output: upscaled, width: 1280, height: 720)
            }
            if FileManager.default.fileExists(atPath: upscaled) { clips.append(("talking head 720p", upscaled)) }
        } else {
            print("SKIPPED talking-head clip: no evaluation data (EVAL_DIR or ../shared/eval)")
        }
        print(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, OpenCV \(openCVVersion), OpenVINO \(InferenceCore.version)"
        )
        var rows: [[String: Any]] = []
        for mode in FaceMode.allCases {
            let detector = try BlazeFaceDetector(options: DetectionOptions(faceMode: mode), models: models)
            for clip in clips {
                rows.append(try measureVideo(clip.path, detector: detector, label: "\(clip.label), \(mode)"))
            }
            rows.append(try measureImage(SampleMedia.astronautPath, detector: detector, label: "sample image, \(mode)"))
        }
        // The mesh stage alone on a still frame, no decoder competing for the cores.
        let still = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let mesher = try FaceMeshEstimator(models: models)
        let region = FaceRegion(center: SampleMedia.astronautFace.center, size: 150, rotation: 0)
        var meshTimes: [Double] = []
        let stageClock = ContinuousClock()
        for _ in 0..<max(20, frames / 3) {
            let start = stageClock.now
            _ = try mesher.mesh(in: still, region: region)
            meshTimes.append((stageClock.now - start).milliseconds)
        }
        print(
            "mesh stage alone (sample still): median \(round3(Statistics.median(meshTimes))) ms, p90 \(round3(Statistics.quantile(meshTimes, 0.9))) ms"
        )
        let expressionRow = try measureExpressionStage(models: models)
        print(
            "expression stage (sample still, per face): total \(expressionRow["total_ms_median"] ?? 0) ms ="
                + " blendshape model \(expressionRow["blendshapes_ms_median"] ?? 0) ms + features, expressions,"
                + " baseline, emoji \(expressionRow["mapping_ms_median"] ?? 0) ms")
        let affectRow = try measureAffectStage(models: models)
        print(
            "emotion + appearance stage (sample still, per face): emotions (\(EmotionView.faceInPicture.count * 2) or \(EmotionView.faceIsPicture.count * 2) CNN"
                + " views) \(affectRow["emotions_ms_median"] ?? 0) ms, gender + age + glasses"
                + " \(affectRow["appearance_ms_median"] ?? 0) ms")
        let latency = try LatencyBench(models: models).run()
        print(
            "camera latency (720p at 30 fps, every metric, Detector defaults): p50 \(latency["latency_ms_p50"] ?? 0) ms,"
                + " p99 \(latency["latency_ms_p99"] ?? 0) ms over \(latency["processed"] ?? 0) analysed frames"
                + " (\(latency["unprocessed"] ?? 0) reported unprocessed)")
        let reidentification = try ReidentificationBench(models: models, runs: runs).run()
        var trackingRows: [[String: Any]] = []
        if let talking = clips.first(where: { $0.label.hasPrefix("talking head") }) {
            let tracking = TrackingBench(models: models, runs: runs)
            let mosaic = "\(workDirectory)/talking-head-x5-1280x720.mp4"
            if !FileManager.default.fileExists(atPath: mosaic) {
                try TrackingBench.makeMosaic(
                    from: SampleMedia.evaluationDirectory?.appendingPathComponent(
                        "videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4"
                    ).path ?? talking.path, to: mosaic, frames: 200)
            }
            trackingRows.append(try tracking.measure(clip: talking.path, label: "1 face 720p, large", faceMode: .large))
            trackingRows.append(
                try tracking.measure(
                    clip: talking.path, label: "1 face 720p, expressions", faceMode: .large, expressions: true))
            trackingRows.append(try tracking.measure(clip: mosaic, label: "5 faces 720p, large", faceMode: .large))
            trackingRows.append(try tracking.measure(clip: mosaic, label: "5 faces 720p, small", faceMode: .small))
        }
        for row in trackingRows {
            let label = (row["input"] as? String ?? "").padding(toLength: 22, withPad: " ", startingAt: 0)
            print(
                "tracking \(label) \(row["fps"] ?? 0) fps | \(row["frame_ms"] ?? 0) ms/frame | faces \(row["faces_per_frame"] ?? 0)"
                    + " | mesh \(row["mesh_ms_per_face"] ?? 0) ms/face | blendshapes \(row["blendshapes_ms_per_face"] ?? 0) ms/face | detect \(row["detect_ms_per_call"] ?? 0) ms"
                    + " x \(row["detect_calls_per_100_frames"] ?? 0)/100 frames | other \(row["other_ms_per_frame"] ?? 0) ms"
            )
        }
        // Same face mode, same face size class: what four more faces cost.
        var facesCost: Double?
        if trackingRows.count == 4, let one = trackingRows[0]["frame_ms"] as? Double,
            let five = trackingRows[2]["frame_ms"] as? Double
        {
            facesCost = round3(five / one)
            print(
                "five faces cost \(round3(five / one)) x one face per frame (large face mode, mesh + pose + tracking)")
        }
        var outputRows: [[String: Any]] = []
        let mien = OutputsBench.besideThisProgram
        if FileManager.default.isExecutableFile(atPath: mien),
            let clip = try OutputsBench.clip(workDirectory: workDirectory)
        {
            let measured = try OutputsBench(mien: mien, runs: max(2, runs), workDirectory: workDirectory).measure(
                clip: clip)
            let plain = measured.first?.seconds ?? .nan
            for row in measured {
                print(
                    "mien analyze 720p 200 frames \(row.label.padding(toLength: 20, withPad: " ", startingAt: 0))"
                        + " \(round3(row.seconds)) s (\(round3((row.seconds / plain - 1) * 100)) % over --output),"
                        + " peak RSS \(round3(row.peakMegabytes)) MB")
                outputRows.append([
                    "variant": row.label, "seconds": round3(row.seconds), "peak_rss_mb": round3(row.peakMegabytes),
                    "over_output_percent": round3((row.seconds / plain - 1) * 100),
                ])
            }
        } else {
            print("SKIPPED mien analyze outputs: needs the talking-head clip and the mien binary beside MienDev")
        }
        for row in rows {
            let label = (row["input"] as? String ?? "").padding(toLength: 26, withPad: " ", startingAt: 0)
            print(
                "\(label) decode \(row["decode_fps"] ?? 0) fps | decode+detect \(row["decode_detect_fps"] ?? 0) fps"
                    + " | ratio \(row["time_ratio"] ?? 0) | detect median \(row["detect_ms_median"] ?? 0) ms,"
                    + " p90 \(row["detect_ms_p90"] ?? 0) ms")
        }
        let summary: [String: Any] = [
            "benchmark": "mien", "runs": runs, "detection": rows, "tracking": trackingRows,
            "expression_stage": expressionRow, "affect_stage": affectRow, "camera_latency": latency,
            "five_faces_over_one_face": facesCost ?? NSNull(),
            "analyze_outputs": outputRows, "reidentification": reidentification,
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// Per-face cost of the expression stage on the sample still's face, split into the blendshape
    /// model and everything Mien adds after it (frontal fit, features, mapping, baseline, emoji, tongue).
    private func measureExpressionStage(models: ModelStore) throws -> [String: Any] {
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        // FaceAnalyzer, not a Detector: this reads one stage's time on its own, which a Detector run mixes with the others.
        let analyzer = try FaceAnalyzer(mode: .image, models: models)
        guard let face = try analyzer.analyze(frame).faces.first else {
            throw MienError(.internalFailure, "no face in the sample still")
        }
        let blendshapes = TimedBlendshapes(try BlendshapeEstimator(models: models))
        let stage = ExpressionStage(
            options: try ExpressionOptions(), blendshapes: blendshapes,
            poses: HeadPoseEstimator(model: try CanonicalFaceModel(models: models)))
        var totals: [Double] = []
        var modelTimes: [Double] = []
        let clock = ContinuousClock()
        for index in 0..<300 {
            var timed = frame
            timed.timestamp = Double(index) / 30
            let before = blendshapes.clock.milliseconds
            let start = clock.now
            _ = try stage.measure(face, in: timed, stream: true)
            totals.append((clock.now - start).milliseconds)
            modelTimes.append(blendshapes.clock.milliseconds - before)
        }
        let mapping = zip(totals, modelTimes).map { $0 - $1 }
        return [
            "total_ms_median": round3(Statistics.median(totals)),
            "blendshapes_ms_median": round3(Statistics.median(modelTimes)),
            "mapping_ms_median": round3(Statistics.median(mapping)),
            "mapping_ms_p90": round3(Statistics.quantile(mapping, 0.9)),
        ]
    }

    /// Per-face cost of emotions (CNN views + fusion) and of appearance (gender, age, glasses) on the
    /// sample still's face.
    private func measureAffectStage(models: ModelStore) throws -> [String: Any] {
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        // FaceAnalyzer, not a Detector: this reads one stage's time on its own, which a Detector run mixes with the others.
        let analyzer = try FaceAnalyzer(mode: .image, expressions: ExpressionOptions(), models: models)
        guard let face = try analyzer.analyze(frame).faces.first else {
            throw MienError(.internalFailure, "no face in the sample still")
        }
        let emotions = AffectStage(emotions: true, cnn: try EmotionNetwork(models: models), appearance: nil)
        let appearance = AffectStage(emotions: false, cnn: nil, appearance: try AppearanceNetworks(models: models))
        var emotionTimes: [Double] = []
        var appearanceTimes: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<100 {
            var start = clock.now
            _ = try emotions.measure(face, in: frame, stream: false)
            emotionTimes.append((clock.now - start).milliseconds)
            start = clock.now
            _ = try appearance.measure(face, in: frame, stream: false)
            appearanceTimes.append((clock.now - start).milliseconds)
        }
        return [
            "emotions_ms_median": round3(Statistics.median(emotionTimes)),
            "appearance_ms_median": round3(Statistics.median(appearanceTimes)),
        ]
    }

    /// Median over `runs` of decode-only and decode + detect passes over the whole clip.
    private func measureVideo(_ path: String, detector: BlazeFaceDetector, label: String) throws -> [String: Any] {
        var decodeFPS: [Double] = []
        var fullFPS: [Double] = []
        var detectMS: [Double] = []
        var frameCount = 0
        for _ in 0..<runs {
            let clock = ContinuousClock()
            var start = clock.now
            let decodeSource = try VideoFileSource(path: path)
            var decoded = 0
            while try decodeSource.nextFrame() != nil { decoded += 1 }
            decodeFPS.append(Double(decoded) / ((clock.now - start).milliseconds / 1000))

            // Decode runs ahead on its own thread, as `mien detect` does, so the two overlap.
            start = clock.now
            let source = PrefetchingFrameSource(try VideoFileSource.forAnalysis(path: path))
            var processed = 0
            while let frame = try source.nextFrame() {
                let before = clock.now
                _ = try detector.detect(in: frame)
                detectMS.append((clock.now - before).milliseconds)
                processed += 1
            }
            fullFPS.append(Double(processed) / ((clock.now - start).milliseconds / 1000))
            frameCount = processed
        }
        return row(label, frames: frameCount, decode: decodeFPS, full: fullFPS, detect: detectMS)
    }

    /// The same for the still sample: decode it `frames / 10` times, with and without detection.
    private func measureImage(_ path: String, detector: BlazeFaceDetector, label: String) throws -> [String: Any] {
        let repeats = max(10, frames / 10)
        var decodeFPS: [Double] = []
        var fullFPS: [Double] = []
        var detectMS: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            var start = clock.now
            for _ in 0..<repeats { _ = try ImageDecoder.decode(file: path) }
            decodeFPS.append(Double(repeats) / ((clock.now - start).milliseconds / 1000))
            start = clock.now
            for _ in 0..<repeats {
                let frame = try ImageDecoder.decode(file: path)
                let before = clock.now
                _ = try detector.detect(in: frame)
                detectMS.append((clock.now - before).milliseconds)
            }
            fullFPS.append(Double(repeats) / ((clock.now - start).milliseconds / 1000))
        }
        return row(label, frames: repeats, decode: decodeFPS, full: fullFPS, detect: detectMS)
    }

    private func row(_ label: String, frames: Int, decode: [Double], full: [Double], detect: [Double]) -> [String: Any]
    {
        let decodeMedian = Statistics.median(decode)
        let fullMedian = Statistics.median(full)
        return [
            "input": label, "frames": frames,
            "decode_fps": round3(decodeMedian), "decode_detect_fps": round3(fullMedian),
            // Time per frame with detection over time per frame decoding only: 1.5 = detection adds 50 %.
            "time_ratio": round3(fullMedian > 0 ? decodeMedian / fullMedian : 0),
            "detect_ms_median": round3(Statistics.median(detect)),
            "detect_ms_p90": round3(Statistics.quantile(detect, 0.9)),
        ]
    }
}
