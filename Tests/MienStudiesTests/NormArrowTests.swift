import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// A norm's arrow needs a size as well as a test (issue 95 item 5): with enough participants the sign-flip test
/// passes for a difference far smaller than the spread between the norm's stimuli.
@Suite("Norm arrows need a size")
struct NormArrowTests {
    /// 12 participants whose smile is `smile` plus a participant's own offset, −1.1 to +1.1, over 6 bins.
    static func study(smile: Double) throws -> Study {
        let series = (0..<12).map { index in
            let value = smile + (Double(index) - 5.5) / 5
            return ParticipantSeries(
                row: .init(
                    line: index + 2, recording: "p\(index).mp4", participant: "p\(index)", stimulus: "ad", onset: 0),
                faceId: 0, frames: 60, faceFrames: 60, faceShare: 1, facesSeen: 1, framesWithSeveralFaces: 0,
                exclusion: nil, notes: [], binCount: 6, bins: ["expressions.smile": Array(repeating: value, count: 6)],
                episodeBins: [:], means: [:], episodeCounts: [:])
        }
        return Study(participants: series, settings: try StudySettings(permutations: 100))
    }

    /// 12 stimuli whose smile means lie symmetrically about `median`, with standard deviation `sd`.
    static func norm(median: Double, sd: Double) -> NormComparison.Norm {
        let offsets = (0..<12).map { Double($0) - 5.5 }
        let scale = sd / (offsets.map { $0 * $0 }.reduce(0, +) / 11).squareRoot()
        let entries = offsets.enumerated().map { index, offset in
            NormEntry(
                id: "n\(index)/ad", fingerprint: "f\(index)", study: "n\(index)", stimulus: "ad", tags: [:],
                participants: 10, seconds: 6, bin: 1, allFrames: false, generator: "test", added: "",
                figures: ["expressions.smile mean": median + offset * scale], counts: ["expressions.smile mean": 10])
        }
        return NormComparison.Norm(source: "test", filters: [:], entries: entries)
    }

    static func smileRow(_ study: Study, _ norm: NormComparison.Norm) throws -> NormComparison.Row {
        try #require(
            NormComparison.rows(study, answers: [:], norm: norm).first { $0.figure == "expressions.smile mean" })
    }

    @Test func aDifferenceOfHalfTheNormsSpread_getsItsArrow() throws {
        let row = try Self.smileRow(try Self.study(smile: 21), Self.norm(median: 20, sd: 1))
        #expect((row.q ?? 1) < 0.05 && abs((row.difference ?? 0) - 1) < 1e-9, "\(row)")
        #expect(abs((row.minimum ?? 0) - 0.5) < 1e-9 && row.direction == "above", "\(row)")
    }

    @Test func aDifferenceTheTestFinds_butSmallAgainstTheSpread_hasNoArrow() throws {
        let study = try Self.study(smile: 22)
        let norm = Self.norm(median: 20, sd: 10)
        let row = try Self.smileRow(study, norm)
        // Every participant is above the median: the exact sign-flip test passes, but 2 points is a fifth of the
        // norm's spread, below the 0.5-SD minimum of 5 points.
        #expect((row.q ?? 1) < 0.05 && abs((row.minimum ?? 0) - 5) < 1e-9 && row.direction == nil, "\(row)")
        let line = try #require(NormComparison.lines([row], norm: norm)["ad"]?.first)
        #expect(!line.contains("↑") && line.contains("by the stated minimum"), "\(line)")
        #expect(NormComparison.csv([row]).contains(",2.0000,5.0000,,") || NormComparison.csv([row]).contains(",2,5,,"))
        // A smaller minimum, settable: the same difference now gets its arrow.
        var settings = study.settings
        settings.normMinimum = 0.1
        let looser = try Self.smileRow(Study(participants: study.participants, settings: settings), norm)
        #expect(looser.direction == "above", "\(looser)")
    }

    @Test func theSummary_putsMeansBeforeSlopes() {
        #expect(
            NormComparison.headlineRank("expressions.smile mean")
                < NormComparison.headlineRank("expressions.smile peak"))
        #expect(
            NormComparison.headlineRank("expressions.smile peak")
                < NormComparison.headlineRank("expressions.smile lastQuarterSlope"))
        #expect(NormComparison.headlineRank("answer liking (7 points)") == 0)
    }
}
