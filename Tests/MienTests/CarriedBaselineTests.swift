import Foundation
import MienCore
import MienTesting
import MienVision
import Testing

@testable import Mien

/// Issue 95 item 1: a participant's resting face learnt in one run (a study's framing check) is where another run
/// (each stimulus) starts, so a still face is read against itself from its first frame, not settling.
@Suite("A neutral baseline carried between runs")
struct CarriedBaselineTests {
    private func models() throws -> ModelStore {
        try ModelStore(directory: SampleMedia.repositoryRoot.appendingPathComponent("Models"))
    }

    /// `count` frames of the astronaut at 10 a second, through a live stream run with `settings`; the run's longest
    /// baseline and the faces of its results.
    private func run(_ count: Int, settings: RunSettings) async throws -> (NeutralBaseline.Carried?, [FaceResult]) {
        let picture = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let detector = Detector(
            source: .pushed(name: "still", mode: .liveStream),
            options: try DetectorOptions(metrics: MetricGroup.expressions.metrics), models: try models())
        let run = try await detector.start(writers: [], settings: settings)
        var faces: [FaceResult] = []
        for index in 0..<count {
            var frame = picture
            frame.timestamp = Double(index) / 10
            frame.index = index
            faces += try await run.process(frame).faces?.values.map { $0 } ?? []
        }
        let baseline = run.longestBaseline
        _ = await run.stop()
        return (baseline, faces)
    }

    @Test func aStillFace_startsSettledFromItsCarriedBaseline_andReadsAsInTheRunThatLearntIt() async throws {
        let (learnt, before) = try await run(30, settings: .standard)
        let carried = try #require(
            learnt,
            "3 s of her face learnt a baseline: \(before.count) \(before.first.map { "\($0.flags) \($0.expressions != nil)" } ?? "")"
        )
        #expect(carried.observed >= 2.5, "\(carried.observed) s observed")
        #expect(before.prefix(5).allSatisfy { $0.flags.contains(.settling) }, "an empty baseline settles first")
        // Through JSON, as a session keeps it: a few kilobytes (every session write carries it).
        let json = try JSONEncoder().encode(carried)
        #expect(json.count < 8_000, "\(json.count) bytes")
        let kept = try JSONDecoder().decode(NeutralBaseline.Carried.self, from: json)
        #expect(kept == carried)
        var settings = RunSettings.standard
        settings.neutralStart = kept
        let (_, after) = try await run(10, settings: settings)
        #expect(after.count >= 5, "a live stream analyses at its rate: \(after.count) of 10")
        #expect(after.allSatisfy { !$0.flags.contains(.settling) }, "no frame settles: the baseline is carried")
        // Her first frame reads as the settled end of the run that learnt the baseline (the same still picture).
        let settled = try #require(before.last?.expressions)
        let first = try #require(after.first?.expressions)
        for expression in FacialExpression.allCases where expression != .attention {
            let difference = abs((first[expression] ?? 0) - (settled[expression] ?? 0))
            #expect(difference < 3, "\(expression): \(first[expression] ?? -1) against \(settled[expression] ?? -1)")
        }
    }

    @Test func aCarriedBaseline_keepsOnlyWhatCanBeABaselines() throws {
        let options = try BaselineOptions()
        let edited = NeutralBaseline.Carried(
            observed: .nan, bins: ["0": ["10": 2, "500": 1, "x": 1, "20": -.infinity], "99999": ["1": 1], "y": [:]])
        let baseline = NeutralBaseline(options: options, carried: edited)
        #expect(baseline.observed == 0 && !baseline.settled)
        #expect(baseline.carried.bins == ["0": ["10": 2]])
    }
}
