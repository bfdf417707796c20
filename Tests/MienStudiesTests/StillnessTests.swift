import Foundation
import MienCore
import MienTesting
import Testing

@testable import Mien
@testable import MienStudies

/// A photo held in front of the camera never moves; a living face, however still, does within seconds (issue 94:
/// a looped photo earned a code as a full viewing).
@Suite("Stillness: a photo against living faces")
struct StillnessTests {
    /// The longest still stretch of a run's results, the largest face taken as the viewer's (as `ProgressTally`).
    private func stillSeconds(_ results: [DetectorResult]) -> Double {
        var stillness = Stillness()
        for result in results where result.processed {
            stillness.add(
                result.timestamp, face: result.faces?.values.max { $0.faceBounds.width < $1.faceBounds.width })
        }
        return stillness.longest
    }

    /// The study's analysis at 5 frames a second (a study page's rate).
    private func options() throws -> DetectorOptions {
        try DetectorOptions(
            detection: DetectionOptions(maximumFaces: 1), maxProcessRate: 5, metrics: MetricGroup.metrics(named: []))
    }

    @Test func aPhotoSentAgainAndAgain_isStillThroughout() async throws {
        let detector = Detector(
            source: .pushed(name: "photo", mode: .video), options: try options(), models: try repositoryModels())
        let run = try await detector.start(writers: [])
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        var results: [DetectorResult] = []
        // 6 s at 5 frames a second, as a page sends a virtual camera's looped picture.
        for index in 0..<30 {
            let frame = EncodedFrame(
                bytes: photo, timestamp: Double(index) / 5, name: "photo", maximumPixels: 1920 * 1080)
            results.append(try await run.process(frame))
        }
        _ = await run.stop()
        let seconds = stillSeconds(results)
        // The tracker's first frames settle (0.4 s); from then on the same picture gives the same landmarks.
        #expect(seconds >= 5, "\(seconds) s still of 5.8 s")
        #expect(Stillness.flagged(stillSeconds: seconds, duration: 6))
    }

    /// Real faces on video, none of them acting still: each moves within a second (0.4 s at most, measured), so
    /// none is flagged.
    @Test(.needsEvaluationData) func livingFaces_moveWithinSeconds() throws {
        let root = try evaluationRoot()
        for path in [
            "videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4", "pyfeat_test_data/single_face.mp4",
            "pyfeat_test_data/WolfgangLanger_Pexels.mp4",
        ] {
            let writer = RecordingWriter()
            let detector = Detector(
                source: .file(path: root.appendingPathComponent(path).path), options: try options(),
                models: try repositoryModels(), writers: [writer])
            try detector.start()
            if case .failed(let error) = detector.wait() { throw error }
            let results = writer.results
            let faces = results.filter { !($0.faces?.isEmpty ?? true) }
            let seconds = stillSeconds(results)
            let duration = results.last?.timestamp ?? 0
            #expect(faces.count > 10, "\(path): \(faces.count) frames with a face")
            #expect(seconds < 1, "\(path): still for \(seconds) s of \(duration) s")
            #expect(!Stillness.flagged(stillSeconds: seconds, duration: duration), "\(path)")
        }
    }
}
