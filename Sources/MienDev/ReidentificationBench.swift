import Foundation
import Mien
import MienTesting

/// What re-identification costs (issue 26): the recognition network once per new track, nothing while a
/// face is tracked.
///
/// The same 720p clip of the sample (one face, tracked throughout) is located with re-identification off and
/// on, alternately; the network is wrapped to count and time its calls.
struct ReidentificationBench {
    let models: ModelStore
    let runs: Int

    /// Counts and times the network's calls.
    private final class CountingRecognizer: FaceRecognizing {
        let network: FaceRecognitionNetwork
        var descriptors = 0
        var milliseconds: [Double] = []
        init(_ network: FaceRecognitionNetwork) { self.network = network }

        func chip(of frame: Frame, chipFromFrame: MienCore.AffineTransform) throws -> Frame {
            try network.chip(of: frame, chipFromFrame: chipFromFrame)
        }

        func descriptor(ofChip chip: Frame) throws -> FaceDescriptor {
            let clock = ContinuousClock()
            let start = clock.now
            defer { milliseconds.append((clock.now - start).milliseconds) }
            descriptors += 1
            return try network.descriptor(ofChip: chip)
        }
    }

    func run() throws -> [String: Any] {
        let clip = try SampleMedia.astronautClip(width: 1280, height: 720, frameCount: 150)
        let frames = try (0..<clip.frameCount).map(clip.frame(at:))
        let poses = HeadPoseEstimator(model: try CanonicalFaceModel(models: models))
        let recognizer = CountingRecognizer(try FaceRecognitionNetwork(models: models))
        func locate(reidentify: Bool) throws -> Double {
            let locator = FaceLocator(
                mode: .video, tracking: try TrackingOptions(), maximumFaces: 1,
                detector: try BlazeFaceDetector(options: DetectionOptions(), models: models),
                mesher: try FaceMeshEstimator(models: models), poses: poses,
                reidentifier: reidentify
                    ? Reidentifier(options: try ReidentificationOptions(), recognizer: recognizer) : nil)
            let clock = ContinuousClock()
            let start = clock.now
            for frame in frames { _ = try locator.locate(frame) }
            return (clock.now - start).milliseconds / Double(frames.count)
        }
        _ = try locate(reidentify: true)  // compile and warm up both paths
        recognizer.descriptors = 0
        recognizer.milliseconds = []
        var off: [Double] = []
        var on: [Double] = []
        for _ in 0..<max(2, runs) {
            off.append(try locate(reidentify: false))
            on.append(try locate(reidentify: true))
        }
        let perRun = Double(recognizer.descriptors) / Double(on.count)
        let result: [String: Any] = [
            "frames": frames.count, "locate_ms_per_frame_off": round3(Statistics.median(off)),
            "locate_ms_per_frame_on": round3(Statistics.median(on)), "descriptors_per_run": round3(perRun),
            "descriptor_ms_median": round3(Statistics.median(recognizer.milliseconds)),
        ]
        print(
            "re-identification (sample 720p, \(frames.count) frames, 1 face tracked): locate"
                + " \(result["locate_ms_per_frame_off"] ?? 0) ms/frame off, \(result["locate_ms_per_frame_on"] ?? 0) on;"
                + " \(perRun) descriptors per run (the new track's samples), \(result["descriptor_ms_median"] ?? 0) ms each"
        )
        return result
    }
}
