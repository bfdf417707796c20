import Foundation
import Mien
import MienTesting
import Testing

/// `onScreen`, `talking` and `eyesClosed` on real faces: the screen's geometry, the sample's look, and clips with
/// known answers.
@Suite("What the viewer was doing", .timeLimit(.minutes(10)))
struct OnScreenTests {
    @Test func aScreen_isValidatedAtCreation_andMeasuresHowFarALookFallsOutside() throws {
        #expect(throws: MienError.self) { try ScreenGeometry(centreYaw: 70, centrePitch: 0, width: 30, height: 20) }
        #expect(throws: MienError.self) { try ScreenGeometry(centreYaw: 0, centrePitch: 0, width: 0.5, height: 20) }
        let laptop = ScreenGeometry.laptop
        #expect(laptop.centred(onYaw: 5, pitch: -12)?.centrePitch == -12)
        #expect(laptop.centred(onYaw: 90, pitch: 0) == nil, "a look 90° aside is no screen's centre")
    }

    @Test func theSample_looksAtALaptopsScreen_notAtOneFarAside() throws {
        let models = try repositoryModels()
        // The astronaut looks into the camera, 1° above a laptop's screen: within the 20° of slack.
        let laptop = try PictureReader(groups: [.gaze], features: false, models: models)
        let face = try #require(try laptop.largestFace(SampleMedia.astronautPath))
        #expect(try #require(face.measures["onScreen"]) == 100)
        let aside = try ScreenGeometry(centreYaw: 55, centrePitch: 0, width: 20, height: 20)
        let other = try PictureReader(
            options: DetectorOptions(
                detection: DetectionOptions(faceMode: .small, maximumFaces: 4),
                metrics: MetricGroup.metrics(named: ["gaze"]), screen: aside),
            models: models)
        #expect(try #require(try other.largestFace(SampleMedia.astronautPath)).measures["onScreen"] == 0)
        let off = try PictureReader(groups: [.expressions], features: false, models: models)
        #expect(try #require(try off.largestFace(SampleMedia.astronautPath)).measures["onScreen"] == nil)
    }

    /// A talking head read as talking most of the time; a face making strong expressions without a word, and a
    /// smile, never.
    @Test(.needsEvaluationData) func clips_talkingIsToldFromExpressions() throws {
        let root = try evaluationRoot()
        func share(_ path: String) throws -> Double {
            let results = try streamResults(path, metrics: [.expression(.mouthOpen), .expression(.jawDrop)])
            let values = results.compactMap { $0.faces?.values.first?.measures["talking"] }
            #expect(values.count > 20, "\(path): \(values.count) frames with talking")
            return Double(values.filter { $0 == 100 }.count) / Double(max(values.count, 1))
        }
        let talkingHead = root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4")
        #expect(try share(talkingHead.path) >= 0.7)
        let pyfeat = root.appendingPathComponent("pyfeat_test_data")
        #expect(try share(pyfeat.appendingPathComponent("WolfgangLanger_Pexels.mp4").path) <= 0.05)
        #expect(try share(pyfeat.appendingPathComponent("single_face.mp4").path) <= 0.05)
    }

    /// Runs the whole `Detector` on a video file and keeps its results.
    private func streamResults(_ path: String, metrics: Set<Metric>) throws -> [DetectorResult] {
        let writer = RecordingWriter()
        let detector = Detector(
            source: .file(path: path),
            options: try DetectorOptions(detection: DetectionOptions(maximumFaces: 1), metrics: metrics),
            models: try repositoryModels(), writers: [writer])
        try detector.start()
        if case .failed(let error) = detector.wait() { throw error }
        return writer.results
    }
}
