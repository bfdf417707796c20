import Foundation
import MienCore
import MienTesting
import MienVision
import Testing

@testable import Mien

/// Shot cuts on real faces: the detector on its own, then whole detectors fed a cut between two people at the
/// same place in the frame and between two shots of one face; no face ID may span a cut.
@Suite("Shot cuts")
struct ShotCutTests {
    private func models() throws -> ModelStore {
        try ModelStore(directory: SampleMedia.repositoryRoot.appendingPathComponent("Models"))
    }

    private func astronaut() throws -> Frame { try ImageDecoder.decode(file: SampleMedia.astronautPath) }

    /// The portrait seen closer: a 1.6 x zoom on her face, the same size of frame (another shot of her).
    private func closeUp(_ frame: Frame) throws -> Frame {
        let face = SampleMedia.astronautFace.center
        let scale = 1.6
        return try frame.warped(
            by: .scale(
                scale, thenTranslate: Double(frame.width) / 2 - scale * face.x,
                Double(frame.height) / 2 - scale * face.y),
            width: frame.width, height: frame.height)
    }

    /// A small camera move: the portrait shifted by `pixels` to the right.
    private func shifted(_ frame: Frame, by pixels: Double) throws -> Frame {
        try frame.warped(by: .scale(1, thenTranslate: pixels, 0), width: frame.width, height: frame.height, border: 0)
    }

    @Test func theDetector_findsACutBetweenShots_andNoneWhenTheCameraMovesALittle() throws {
        let still = try astronaut()
        var cuts = try ShotCutDetector()
        let first = cuts.isCut(still)
        #expect(!first, "the first frame starts the first shot")
        let small = cuts.isCut(try shifted(still, by: 3))
        let larger = cuts.isCut(try shifted(still, by: 6))
        #expect(!small && !larger, "a camera move within the shot")
        let closer = cuts.isCut(try closeUp(still))
        #expect(closer, "the same face, closer: another shot")
        #expect(throws: MienError.self) { try ShotCutDetector(threshold: 0) }
    }

    /// Pushes `frames` at 25 fps into a stream detector; returns the processed results.
    private func run(_ frames: [Frame], options: DetectorOptions) throws -> [DetectorResult] {
        let detector = Detector(source: .pushed(mode: .video), options: options, models: try models())
        try detector.start()
        defer { detector.stop() }
        return try frames.enumerated().map { index, frame in
            var frame = frame
            frame.timestamp = Double(index) / 25
            return try detector.process(frame)
        }
    }

    /// The face IDs seen before and after frame `cut`.
    private func ids(_ results: [DetectorResult], splitAt cut: Int) -> (before: Set<Int>, after: Set<Int>) {
        let before = results.prefix(cut).flatMap { $0.faces.map { Array($0.keys) } ?? [] }
        let after = results.dropFirst(cut).flatMap { $0.faces.map { Array($0.keys) } ?? [] }
        return (Set(before), Set(after))
    }

    @Test func oneFaceAcrossACut_getsANewId_orWithReidentificationHerOwnBack() throws {
        let still = try astronaut()
        // 1.6 s before the cut: her first second is settling (her baseline learnt), when no episode can start.
        let frames = Array(repeating: still, count: 40) + Array(repeating: try closeUp(still), count: 8)
        let results = try run(frames, options: try DetectorOptions(metrics: [.expression(.smile)]))
        #expect(
            results.map(\.shotCut) == Array(repeating: false, count: 40) + [true] + Array(repeating: false, count: 7))
        let plain = ids(results, splitAt: 40)
        #expect(!plain.before.isEmpty && !plain.after.isEmpty)
        #expect(plain.before.isDisjoint(with: plain.after), "no ID spans the cut")
        #expect(results[40].lost == Array(plain.before).sorted(), "the faces before the cut are lost on it")
        // Her smile episode ends with the shot.
        let smile = results.flatMap(\.episodes).filter { $0.metric == "expressions.smile" && $0.change == .finished }
        #expect(smile.first?.ending == .cut, "\(smile)")

        let options = try DetectorOptions(
            detection: DetectionOptions(), metrics: [.expression(.smile)], reidentification: ReidentificationOptions())
        let again = try run(frames, options: options)
        let reidentified = ids(again, splitAt: 40)
        #expect(reidentified.before == reidentified.after, "re-identified: the same person, her own ID")
        // Announced as a return once recognised (a new face is held back while it is).
        #expect(again.dropFirst(40).compactMap(\.returned).joined().sorted() == Array(reidentified.before).sorted())
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func twoPeopleAtTheSamePlace_neverShareAnId() throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        // Yale's subjects were photographed with one framing, light and background: the second face lands
        // where the first one was.
        let first = try ImageDecoder.decode(
            file: root.appendingPathComponent("yalefaces/png/subject02.normal.png").path)
        let second = try ImageDecoder.decode(
            file: root.appendingPathComponent("yalefaces/png/subject03.normal.png").path)
        let frames = Array(repeating: first, count: 8) + Array(repeating: second, count: 8)
        let results = try run(frames, options: try DetectorOptions())
        #expect(results[8].shotCut)
        let split = ids(results, splitAt: 8)
        #expect(!split.before.isEmpty && !split.after.isEmpty)
        #expect(split.before.isDisjoint(with: split.after), "\(split)")
        // Off, the tracker follows the face at the same place: one ID for two people (why cuts are found).
        let off = try DetectorOptions(detection: DetectionOptions(), shotCutThreshold: nil)
        let merged = ids(try run(frames, options: off), splitAt: 8)
        #expect(!merged.before.isDisjoint(with: merged.after))
    }
}
