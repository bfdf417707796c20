import MienCore
import Testing

@Suite("Episodes of a score")
struct EpisodeTests {
    /// Feeds `(time, value)` pairs and then ends at `end` (if given); returns every change in order.
    private func run(
        _ samples: [(Double, Double?)], options: EpisodeOptions? = nil, end: (Double, Episode.Ending)? = nil
    ) throws -> [EpisodeDetector.Change] {
        var detector = EpisodeDetector(options: try options ?? EpisodeOptions())
        var changes: [EpisodeDetector.Change] = []
        for (time, value) in samples { changes += detector.update(value, at: time) }
        if let end { changes += detector.end(at: end.0, because: end.1) }
        return changes
    }

    private func finished(_ changes: [EpisodeDetector.Change]) -> [Episode] {
        changes.compactMap { if case .finished(let episode) = $0 { episode } else { nil } }
    }

    /// Samples every `1 / fps` s from 0 to `until` of a score given as a function of time.
    private func sampled(fps: Double, until: Double, _ score: (Double) -> Double?) -> [(Double, Double?)] {
        (0...Int(until * fps)).map { index in
            let time = Double(index) / fps
            return (time, score(time))
        }
    }

    @Test func hysteresis_startsAtOn_staysOnDownToOff_andEndsBelowIt() throws {
        let changes = try run(
            [(0.0, 10), (0.1, 60), (0.2, 80), (0.3, 45), (0.4, 35), (0.5, 31), (0.6, 25), (0.7, 45), (1.0, 0)])
        #expect(changes.first == .started(onset: 0.1, apex: 0.2, apexValue: 80))
        // 45 at 0.7 is within the merge gap of the fall at 0.6 but under `on`: the fall stands.
        #expect(finished(changes) == [Episode(onset: 0.1, apex: 0.2, apexValue: 80, offset: 0.6, ending: .fell)])
    }

    @Test func aBlipShorterThanTheMinimum_isNeverReported() throws {
        #expect(try run([(0.0, 0), (0.1, 90), (0.2, 10), (0.6, 10), (1.0, 0)]).isEmpty)
        // The minimum counts from onset to offset: 0.1 to 0.3 is long enough.
        let changes = try run([(0.0, 0), (0.1, 90), (0.2, 90), (0.3, 10), (0.6, 10)])
        #expect(finished(changes).map(\.duration) == [0.3 - 0.1])
    }

    @Test func twoEpisodesCloserThanTheMergeGap_areOne_andFartherApart_areTwo() throws {
        let close = try run([(0.0, 60), (0.3, 60), (0.35, 20), (0.45, 70), (0.8, 70), (0.9, 0), (1.5, 0)])
        #expect(finished(close) == [Episode(onset: 0, apex: 0.45, apexValue: 70, offset: 0.9, ending: .fell)])
        #expect(close.filter { if case .started = $0 { true } else { false } }.count == 1)
        let apart = try run([(0.0, 60), (0.3, 60), (0.35, 20), (0.7, 70), (1.0, 70), (1.1, 0), (1.5, 0)])
        #expect(finished(apart).map(\.onset) == [0, 0.7] && finished(apart).map(\.offset) == [0.35, 1.1])
    }

    @Test func unmeasuredFrames_suspendAnEpisode_withoutEndingIt() throws {
        let changes = try run([(0.0, 70), (0.1, 90), (0.2, nil), (0.8, nil), (1.0, 60), (1.1, 10), (1.5, nil)])
        #expect(finished(changes) == [Episode(onset: 0, apex: 0.1, apexValue: 90, offset: 1.1, ending: .fell)])
    }

    @Test func aLostFace_endsItsEpisodeThen_andAFallenOneAtItsFall() throws {
        let lost = try run([(0.0, 70), (0.5, 80)], end: (0.6, .lost))
        #expect(finished(lost) == [Episode(onset: 0, apex: 0.5, apexValue: 80, offset: 0.6, ending: .lost)])
        let fallen = try run([(0.0, 70), (0.5, 80), (0.6, 0)], end: (0.65, .cut))
        #expect(finished(fallen).map(\.ending) == [.fell] && finished(fallen).map(\.offset) == [0.6])
        // Lost before its minimum: nothing.
        #expect(try run([(0.0, 70)], end: (0.1, .lost)).isEmpty)
    }

    @Test func theSameScoreAtAnyFrameRate_givesTheSameEpisode_withinOneFrame() throws {
        // A smile from 1.0 s to 2.0 s, peaking at 1.5 s.
        let smile: (Double) -> Double? = { t in (1.0...2.0).contains(t) ? 100 - 40 * abs(t - 1.5) : 0 }
        for fps in [30.0, 10.0, 5.0] {
            let episodes = finished(try run(sampled(fps: fps, until: 3, smile)))
            #expect(episodes.count == 1, "\(fps) fps")
            guard let episode = episodes.first else { continue }
            #expect(abs(episode.onset - 1.0) < 1e-9 && abs(episode.apex - 1.5) <= 0.5 / fps + 1e-9, "\(fps) fps")
            #expect(episode.offset > 2.0 && episode.offset <= 2.0 + 1 / fps + 1e-9, "\(fps) fps: \(episode.offset)")
        }
    }

    @Test func timeThatDoesNotAdvance_isIgnored_andAfterEndingItStartsAfresh() throws {
        var detector = EpisodeDetector(options: try EpisodeOptions())
        _ = detector.update(70, at: 1.0)
        #expect(detector.update(0, at: 1.0).isEmpty && detector.update(0, at: 0.5).isEmpty && detector.isOn)
        _ = detector.end(at: 1.3, because: .lost)
        #expect(!detector.isOn)
        _ = detector.update(70, at: 0.2)  // a new face's stream may restart its clock
        #expect(detector.isOn)
    }

    @Test func options_areChecked() {
        #expect(throws: MienError.self) { try EpisodeOptions(on: 30, off: 50) }
        #expect(throws: MienError.self) { try EpisodeOptions(on: 150) }
        #expect(throws: MienError.self) { try EpisodeOptions(minimumDuration: -1) }
        #expect(throws: MienError.self) { try EpisodeOptions(mergeGap: .infinity) }
        #expect(throws: Never.self) { try EpisodeOptions(on: 50, off: 50, minimumDuration: 0, mergeGap: 0) }
    }
}
