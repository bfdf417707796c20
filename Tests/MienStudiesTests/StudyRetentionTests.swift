import Foundation
import MienStatistics
import Testing

@testable import Mien
@testable import MienStudies

/// A skippable stimulus's retention in a study: who skipped when, per group, Kaplan-Meier's curve per bin, the
/// log-rank test and where viewers left fastest (the figures themselves are checked against scipy by `make
/// statistics-check`).
@Suite("Retention of a skippable stimulus")
struct StudyRetentionTests {
    /// An included viewer of the 10-s stimulus `ad` in `group` who skipped at `skipped` (nil: watched to the end).
    private func viewer(_ name: String, _ group: String, skipped: Double?) -> ParticipantSeries {
        let viewing = ViewingFigures(
            hiddenSeconds: 0, outOfFullscreenSeconds: 0, unfocusedSeconds: 0, stalls: 0, stallSeconds: 0, seeks: 0,
            cameraFps: 15, timingSpreadMs: 20, skippedAt: skipped)
        let row = StudyManifest.Row(
            line: 2, recording: "\(name).jsonl", participant: name, stimulus: "ad", onset: 0, duration: 10,
            group: group, status: "complete", viewing: viewing)
        return ParticipantSeries(
            row: row, faceId: 0, frames: 100, faceFrames: 100, faceShare: 1, facesSeen: 1, framesWithSeveralFaces: 0,
            exclusion: nil, notes: [], binCount: 10, bins: ["expressions.smile": Array(repeating: 10, count: 10)],
            episodeBins: [:], means: ["expressions.smile": 10], episodeCounts: [:])
    }

    @Test func skipsMakeACurvePerGroup_aLogRankTest_andTheFastestMoments() throws {
        // A leaves early (2 at 2.5 s, 2 at 3.2 s, 1 at 7 s; 1 stays), B late (1 at 8.5 s; 5 stay).
        let a = [2.5, 2.5, 3.2, 3.2, 7.0, nil].enumerated().map { viewer("a\($0.offset)", "A", skipped: $0.element) }
        let b = [8.5, nil, nil, nil, nil, nil].enumerated().map { viewer("b\($0.offset)", "B", skipped: $0.element) }
        let study = Study(participants: a + b, settings: try StudySettings())
        let whole = study.retention.filter { $0.group == "all" }
        #expect(whole.count == 10 && whole.map(\.atRisk).prefix(4) == [12, 12, 12, 10], "\(whole)")
        #expect(whole[2].skipped == 2 && whole[3].skipped == 2 && whole[8].skipped == 1)
        // Kaplan-Meier of the whole panel at the end of bin 3 (4 s): 1 − 4/12 (no censoring before).
        #expect(abs(whole[3].retained - 100 * 8 / 12) < 1e-9 && whole[0].retained == 100)
        #expect(whole[0].low == nil, "no band before anyone left")
        let groupA = study.retention.filter { $0.group == "A" }
        #expect(abs((groupA.last?.retained ?? 0) - 100.0 / 6) < 1e-9, "1 of 6 stayed in A")
        let test = try #require(study.retentionTests.first)
        #expect(
            test.groups == ["A", "B"] && test.degrees == 1 && test.p < 0.05 && test.method == "log-rank", "\(test)")
        #expect(test.p == test.uncorrectedP, "one retention test: nothing to correct for")
        // Two stimuli's tests corrected together: the larger p stays, the smaller doubles (Benjamini-Hochberg).
        var other = test
        other.uncorrectedP = 0.04
        let both = StudyRetention.corrected([test, other])
        #expect(abs(both[1].p - 0.04) < 1e-12 && abs(both[0].p - min(2 * test.uncorrectedP, 0.04)) < 1e-12, "\(both)")
        let fastest = StudyRetention.fastest(whole)
        #expect(fastest.map(\.time) == [2, 3], "2 of 12 at 2-3 s and 2 of 10 at 3-4 s: \(fastest)")
        let table = StudyTables.retention(study)
        #expect(table.hasPrefix("stimulus,group,time,atRisk,skipped,retained,low,high\n"))
        #expect(study.notes.contains { $0.contains("log-rank test") })
    }

    /// Retention counts every viewer who started the stimulus: a skipper the viewing rules excluded still left at
    /// their skip time (issue 95: 25 of 30 counted, 80 % reported for a true 66.7 %).
    @Test func anExcludedSkipper_stillSkipped() throws {
        var viewers = [2.0, nil, nil].enumerated().map { viewer("v\($0.offset)", "A", skipped: $0.element) }
        viewers[0].exclusion = "viewing rule hidden: the page was hidden 3 s of 10 s"
        let study = Study(participants: viewers, settings: try StudySettings())
        let whole = study.retention.filter { $0.group == "all" }
        #expect(whole.first?.atRisk == 3 && abs((whole.last?.retained ?? 0) - 200.0 / 3) < 1e-9, "\(whole)")
        #expect(study.curves.filter { $0.group == "all" }.allSatisfy { $0.n == 2 }, "the curves count the included")
    }

    @Test func noSkip_noRetention() throws {
        let panel = (0..<4).map { viewer("v\($0)", "A", skipped: nil) }
        let study = Study(participants: panel, settings: try StudySettings())
        #expect(study.retention.isEmpty && study.retentionTests.isEmpty)
    }
}
