import Foundation
import MienCore
import Testing

@testable import Mien

@Suite("Episodes of a stream's faces")
struct EpisodeTrackerTests {
    /// A face with a smile score and both eyes' closure.
    private func face(_ id: Int, smile: Double, eyes: Double = 2, flags: [QualityFlag] = []) -> FaceResult {
        var face = FaceResult(
            detection: FaceDetection(
                bounds: Rect(x: 10, y: 10, width: 100, height: 100),
                keypoints: Array(repeating: Point(x: 50, y: 50), count: 6), confidence: 0.9),
            faceId: id)
        face.keypoints = nil
        face.flags = flags
        face.expressions = Expressions(
            scores: Scores([.smile: smile, .eyeClosure: eyes]), left: Scores([.eyeClosure: eyes]),
            right: Scores([.eyeClosure: eyes]))
        return face
    }

    /// Feeds results at 10 fps.
    ///
    /// `frames[i]` are the faces of frame i (nil: not processed), `lost[i]` the faces lost on it. Returns every
    /// event, those of the end included.
    private func run(
        _ frames: [[FaceResult]?], lost: [Int: [Int]] = [:], settings: EpisodeSettings = .standard,
        facesReturn: Bool = false, cutAt: Int? = nil
    ) throws -> [EpisodeEvent] {
        var tracker = try EpisodeTracker(settings: settings, facesReturn: facesReturn)
        var events: [EpisodeEvent] = []
        for (index, faces) in frames.enumerated() {
            if index == cutAt { events += tracker.cut() }
            var result = DetectorResult(
                frameIndex: index, timestamp: Double(index) / 10,
                faces: faces.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.faceId, $0) }) },
                lost: lost[index] ?? [])
            events += tracker.update(&result)
        }
        return events + tracker.finish()
    }

    private func finished(_ events: [EpisodeEvent], _ metric: String = "expressions.smile") -> [Episode] {
        events.filter { $0.metric == metric }.compactMap(\.episode)
    }

    @Test func aSmile_startsAfterItsMinimum_andFinishesWhenItFalls() throws {
        let scores: [Double] = [0, 60, 80, 90, 70, 20, 10, 10, 10, 10]
        let events = try run(scores.map { [face(0, smile: $0)] })
        let smile = events.filter { $0.metric == "expressions.smile" }
        #expect(smile.map(\.change) == [.started, .finished])
        #expect(smile[0].onset == 0.1 && smile[0].apex == 0.3, "started at 0.3 s, its minimum, with the apex so far")
        #expect(finished(events) == [Episode(onset: 0.1, apex: 0.3, apexValue: 90, offset: 0.5, ending: .fell)])
    }

    @Test func flaggedFaces_andUnprocessedFrames_suspendAnEpisode() throws {
        var frames: [[FaceResult]?] = [[face(0, smile: 80)], [face(0, smile: 80)], [face(0, smile: 80)]]
        frames.append([face(0, smile: 0, flags: [.headTurned])])  // cannot be measured: not a fall
        frames.append(nil)  // not analysed
        frames += [[face(0, smile: 85)], [face(0, smile: 10)], [face(0, smile: 10)], [face(0, smile: 10)]]
        #expect(
            finished(try run(frames)) == [Episode(onset: 0, apex: 0.5, apexValue: 85, offset: 0.6, ending: .fell)])
    }

    @Test func aLostFace_endsItsEpisodes_atTheLastFrameItWasSeen() throws {
        let frames: [[FaceResult]?] = [[face(0, smile: 80)], [face(0, smile: 80)], [face(0, smile: 80)], [], []]
        #expect(
            finished(try run(frames, lost: [3: [0]]))
                == [Episode(onset: 0, apex: 0, apexValue: 80, offset: 0.2, ending: .lost)])
    }

    @Test func withReidentification_aReturningFace_continuesItsEpisode() throws {
        var frames: [[FaceResult]?] = Array(repeating: [face(0, smile: 80)], count: 3)
        frames += [[], [face(0, smile: 90)], [face(0, smile: 5)], [face(0, smile: 5)], [face(0, smile: 5)]]
        #expect(
            finished(try run(frames, lost: [3: [0]], facesReturn: true))
                == [Episode(onset: 0, apex: 0.4, apexValue: 90, offset: 0.5, ending: .fell)])
        // One that never comes back ends `lost` at the input's end, at the last frame it was seen.
        #expect(
            finished(try run(Array(frames.prefix(4)), lost: [3: [0]], facesReturn: true))
                == [Episode(onset: 0, apex: 0, apexValue: 80, offset: 0.2, ending: .lost)])
    }

    @Test func aCut_endsEveryFacesEpisodes() throws {
        let frames: [[FaceResult]?] = Array(repeating: [face(0, smile: 80), face(1, smile: 70)], count: 6)
        let episodes = try run(frames, cutAt: 3).filter { $0.change == .finished }
        #expect(episodes.count == 4, "each face's smile before the cut and after it")
        #expect(episodes.prefix(2).allSatisfy { $0.ending == .cut && $0.offset == 0.2 })
        #expect(episodes.suffix(2).allSatisfy { $0.ending == .ended && $0.onset == 0.3 })
    }

    @Test func theSameEpisodes_atAnyRateCap() throws {
        // A 1.5 s smile sampled at 10 fps and every third frame (3.3 fps): same onset and offset.
        let scores: [Double] = [0, 0, 0] + Array(repeating: 90, count: 15) + Array(repeating: 0, count: 9)
        let every = try run(scores.map { [face(0, smile: $0)] })
        let capped = try run(scores.enumerated().map { $0.offset % 3 == 0 ? [face(0, smile: $0.element)] : nil })
        #expect(finished(every) == finished(capped))
    }

    @Test func blinks_andTheBlinkRate() throws {
        // 10 fps for 8 s, a blink (one closed frame) every 2 s.
        var frames: [[FaceResult]?] = []
        for index in 0..<80 { frames.append([face(0, smile: 0, eyes: index % 20 == 5 ? 95 : 2)]) }
        var tracker = try EpisodeTracker(settings: .standard, facesReturn: false)
        var rates: [Double?] = []
        var blinks = 0
        for (index, faces) in frames.enumerated() {
            var result = DetectorResult(
                frameIndex: index, timestamp: Double(index) / 10,
                faces: faces.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.faceId, $0) }) })
            blinks += tracker.update(&result).filter { $0.metric == "blink" && $0.change == .finished }.count
            rates.append(result.faces?[0]?.blinkRate)
        }
        #expect(blinks == 4)
        #expect(rates[40] == nil, "no rate before the 5 s warm-up")
        // At 7.9 s: 4 blinks (0.5, 2.5, 4.5, 6.5 s) in 7.9 s seen.
        let last = try #require(rates[79])
        #expect(abs(last - 4 * 60 / 7.9) < 1e-9)
    }

    @Test func onlyTheWatchedMetrics_withTheirOwnThresholds() throws {
        let scores: [Double] = [0, 40, 40, 40, 40, 0, 0, 0]
        let frames = scores.map { [face(0, smile: $0, eyes: 2)] }
        #expect(finished(try run(frames)).isEmpty, "40 is under the default on threshold")
        let settings = try EpisodeSettings(
            metrics: ["expressions.smile"],
            perMetric: ["expressions.smile": EpisodeOptions(on: 35, off: 20, minimumDuration: 0.2)])
        let events = try run(frames, settings: settings)
        #expect(finished(events).count == 1)
        #expect(Set(events.map(\.metric)) == ["expressions.smile"])
        #expect(try run(frames, settings: .off).isEmpty)
        // Watching a metric that is off is a mistake said at once, not a silence.
        let watched = try EpisodeSettings(metrics: ["expressions.smile", "blink"])
        #expect(throws: MienError.self) {
            try DetectorOptions(detection: DetectionOptions(), metrics: [.emotion(.joy)], episodes: watched)
        }
        #expect(watched.unmeasured(given: [.expression(.smile)]) == ["blink"])
        #expect(watched.unmeasured(given: [.expression(.smile), .expression(.eyeClosure)]).isEmpty)
    }

    @Test func smoothing_findsEpisodesOnSmoothedScores_andReportsThemOnlyWhenAsked() throws {
        let settings = try EpisodeSettings(smoothing: 0.3)
        var tracker = try EpisodeTracker(settings: settings, facesReturn: false)
        var result = DetectorResult(frameIndex: 0, timestamp: 0, faces: [0: face(0, smile: 0)])
        _ = tracker.update(&result)
        result = DetectorResult(frameIndex: 1, timestamp: 0.1, faces: [0: face(0, smile: 100)])
        _ = tracker.update(&result)
        #expect(result.faces?[0]?.expressions?[.smile] == 100, "raw scores stay raw")
        var smoothing = try EpisodeTracker(
            settings: EpisodeSettings(smoothing: 0.3, smoothScores: true), facesReturn: false)
        result = DetectorResult(frameIndex: 0, timestamp: 0, faces: [0: face(0, smile: 0)])
        _ = smoothing.update(&result)
        result = DetectorResult(frameIndex: 1, timestamp: 0.1, faces: [0: face(0, smile: 100)])
        _ = smoothing.update(&result)
        let smoothed = try #require(result.faces?[0]?.expressions?[.smile])
        #expect(abs(smoothed - 100 * (1 - Foundation.exp(-0.1 / 0.3))) < 1e-9)
        #expect(throws: MienError.self) { try EpisodeSettings(smoothScores: true) }
        #expect(throws: MienError.self) { try EpisodeSettings(smoothing: -1) }
    }
}
