import Foundation
import Mien
import MienTesting
import Synchronization
import Testing

/// Re-identification on real faces (issue 26): a clip of person A (a talking-head video from the
/// evaluation data), a gap, person B (the bundled astronaut), a gap, A again, and A and B crossing.
@Suite("Re-identification on real faces", .serialized)
struct ReidentificationTests {
    /// The delegate's found callbacks, in order: (faceId, whether it came as a return).
    final class FoundRecorder: DetectorDelegate {
        let found = Mutex<[(id: Int, returning: Bool)]>([])
        func detector(_ detector: Detector, didFind face: FaceResult) {
            found.withLock { $0.append((face.faceId, false)) }
        }
        func detector(_ detector: Detector, didFindReturning face: FaceResult) {
            found.withLock { $0.append((face.faceId, true)) }
        }
    }

    /// Per frame: the scene and the results.
    private func run(reidentify: Bool, delegate: FoundRecorder? = nil) throws -> [(
        scene: ReentryClip.Scene, result: DetectorResult
    )] {
        let root = try evaluationRoot()
        let clip = try ReentryClip(
            videoA: root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path,
            stillB: SampleMedia.astronautPath)
        let options = try DetectorOptions(
            detection: DetectionOptions(maximumFaces: 2), metrics: [.expression(.smile), .age],
            reidentification: reidentify ? ReidentificationOptions() : nil)
        let detector = Detector(source: .pushedFrames, options: options, models: try repositoryModels())
        detector.delegate = delegate
        try detector.start()
        defer { detector.stop() }
        return try (0..<ReentryClip.frameCount).map { index in
            (ReentryClip.scene(at: index).scene, try detector.process(clip.frame(at: index)))
        }
    }

    @Test(.needsEvaluationData) func returningFaces_getTheirIDsBack_andNobodyTakesAnothersID() throws {
        let recorder = FoundRecorder()
        let frames = try run(reidentify: true, delegate: recorder)
        let idsOf = { (scene: ReentryClip.Scene) in
            Set(frames.filter { $0.scene == scene }.flatMap { $0.result.faces.map { Array($0.keys) } ?? [] })
        }
        let a = try #require(idsOf(.personA).first)
        let b = try #require(idsOf(.personB).first)
        #expect(idsOf(.personA) == [a], "A always has one ID")
        #expect(idsOf(.personB) == [b] && b != a, "B has its own ID, never A's")
        #expect(idsOf(.gap).isEmpty)
        // Crossing: A along the top, B along the bottom, each under its own ID.
        for (_, result) in frames.filter({ $0.scene == .crossing }) {
            for (id, face) in result.faces ?? [:] {
                #expect(id == (face.faceBounds.center.y < 240 ? a : b), "frame \(result.frameIndex): face \(id)")
            }
        }
        // Every return of A (after the gap, and in the crossing) and of B (in the crossing) is a return.
        let returned = frames.flatMap { $0.result.returned ?? [] }
        #expect(returned.filter { $0 == a }.count == 2 && returned.filter { $0 == b }.count == 1, "\(returned)")
        #expect(frames.allSatisfy { Set($0.result.returned ?? []).isSubset(of: $0.result.found) })
        // The delegate hears a return as one: A and B found, then A back, then both back.
        let heard = recorder.found.withLock { $0 }
        #expect(
            heard.map(\.id) == [a, b, a] + [a, b].sorted()
                && heard.map(\.returning) == [false, false, true, true, true])
        // A face is held back at most the decision time (1 s) after it appears.
        let crossing = frames.filter { $0.scene == .crossing }
        #expect(crossing.prefix(25).contains { ($0.result.faces?.count ?? 0) == 2 })
        // A comes back with its appearance averages: after 40 frames they were settled, so A's first frame back
        // reads exactly what its last frame before the gap did (a new face would start from one frame).
        let firstAScene = frames.prefix(ReentryClip.scenes[0].frames)
        let lastBefore = try #require(firstAScene.last?.result.faces?[a]?.ageYears)
        let firstBack = try #require(
            frames.first { $0.result.returned == [a] }?.result.faces?[a]?.ageYears)
        #expect(firstBack == lastBefore)
        // The per-person summary has one row for A and one for B.
        var summary = InputSummary(input: "clip")
        for (_, result) in frames { summary.add(result) }
        #expect(summary.faces.map(\.faceId) == [a, b].sorted())
    }

    @Test(.needsEvaluationData) func off_everyAppearanceIsANewFace_asBefore() throws {
        let frames = try run(reidentify: false)
        let found = frames.flatMap(\.result.found)
        // Without re-identification A's second appearance starts its appearance afresh.
        let lastBefore = try #require(frames[ReentryClip.scenes[0].frames - 1].result.faces?[0]?.ageYears)
        let firstOfTheNext = try #require(frames.first { $0.result.found == [2] }?.result.faces?[2]?.ageYears)
        #expect(firstOfTheNext != lastBefore)
        // A, B, A again, then A and B crossing: five faces, numbered in order, none a return.
        #expect(found == [0, 1, 2, 3, 4], "\(found)")
        #expect(frames.allSatisfy { $0.result.returned == nil })
        // Nothing is held back: every scene's first frame already has its face.
        var start = 0
        for (scene, length) in ReentryClip.scenes {
            if scene != .gap { #expect((frames[start].result.faces?.count ?? 0) >= 1, "scene at frame \(start)") }
            start += length
        }
    }

    @Test func network_describesTheSample_stablyAndApartFromAMirroredStranger() throws {
        let network = try FaceRecognitionNetwork(models: repositoryModels())
        let analyzer = try FaceAnalyzer(mode: .image, models: repositoryModels())
        let sample = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let face = try #require(try analyzer.analyze(sample).faces.first)
        let transform = try #require(RecognitionChip.chipFromFrame(ibug68: Ibug68Points.points(of: face.mesh)))
        let chip = try network.chip(of: sample, chipFromFrame: transform)
        let descriptor = try network.descriptor(ofChip: chip)
        // dlib's descriptors have a norm of about 1 and are deterministic.
        let norm = descriptor.values.reduce(0) { $0 + Double($1 * $1) }.squareRoot()
        #expect(norm > 0.5 && norm < 2, "norm \(norm)")
        #expect(try network.descriptor(ofChip: chip) == descriptor)
        // The same face a little shifted and scaled is the same person; a flat grey chip is nobody.
        let shifted = try network.chip(
            of: sample,
            chipFromFrame: MienCore.AffineTransform.scale(1.04, thenTranslate: -3, 2).concatenating(after: transform))
        #expect(descriptor.distance(to: try network.descriptor(ofChip: shifted)) < 0.3)
        let grey = try Frame(width: 150, height: 150, pixels: [UInt8](repeating: 128, count: 150 * 150 * 3))
        #expect(
            descriptor.distance(to: try network.descriptor(ofChip: grey)) > ReidentificationOptions.calibratedThreshold)
        #expect(ChipSharpness.of(chip) >= ReidentificationOptions.calibratedSharpness)
        #expect(ChipSharpness.of(grey) == 0)
        #expect(mienError { _ = try network.descriptor(ofChip: sample) }?.code == .invalidArgument)
    }

    @Test func verification_thresholdAcceptsAtMostTheRate() throws {
        let different = (1...1000).map { Double($0) / 1000 }  // 0.001 ... 1.0
        let threshold = try #require(Verification.threshold(falseMatchRate: 0.01, different: different))
        #expect(Verification.acceptRate(different, threshold: threshold) == 0.01)
        #expect(abs(threshold - 0.0105) < 1e-12)
        // Ties at the boundary are not all accepted.
        let tied = [0.1, 0.2, 0.2, 0.2, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
        let tiedThreshold = try #require(Verification.threshold(falseMatchRate: 0.3, different: tied))
        #expect(Verification.acceptRate(tied, threshold: tiedThreshold) <= 0.3)
        #expect(Verification.threshold(falseMatchRate: 0.01, different: []) == nil)
        #expect(Verification.acceptRate([0.1, 0.4], threshold: 0.3) == 0.5)
    }
}
