import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// The verdict study.html opens with (issue 98 items 2 and 3): kpis.csv's figures in words, placed against a norm
/// that holds the survey KPIs too.
@Suite("A stimulus's verdict")
struct StudyVerdictTests {
    /// 12 norm stimuli whose liking top-2-box shares are 10, 15, ..., 65 % and whose smile means are 5, 10, ..., 60.
    static func norm() -> NormComparison.Norm {
        let top = NormFigures.topTwoBox("liking", points: 7)
        let entries = (0..<12).map { (index: Int) -> NormEntry in
            let share = Double(10 + 5 * index)
            let smile = Double(5 + 5 * index)
            let figures: [String: Double] = [top: share, "expressions.smile mean": smile]
            let counts: [String: Int] = [top: 10, "expressions.smile mean": 10]
            return NormEntry(
                id: "n\(index)/ad", fingerprint: "f\(index)", study: "n\(index)", stimulus: "ad", tags: [:],
                participants: 10, seconds: 6, bin: 1, allFrames: false, generator: "test", added: "",
                figures: figures, counts: counts)
        }
        return NormComparison.Norm(source: "test", filters: [:], entries: entries)
    }

    static func study(norm: NormComparison.Norm?) throws -> Study {
        var (study, sessions, questions) = try StudyKPIsTests.panel()
        study.kpis = StudyKPIs.rows(study, sessions: sessions, questions: questions)
        if let norm {
            let answers = NormFigures.answers(sessions, questions: questions, stimulus: "ad", onlyStimulus: true)
            study.normComparison = NormComparison.rows(study, answers: ["ad": answers], norm: norm)
        }
        return study
    }

    @Test func theVerdict_saysEachKPIFromItsNumbers_placedAgainstTheNorm() throws {
        let study = try Self.study(norm: Self.norm())
        // The norm's top-2-box figure is kpis.csv's: the share of the 9 included who answered 6 or 7.
        let placed = try #require(study.normComparison.first { $0.figure == "top2box liking (7 points)" })
        #expect(abs(placed.value - 400.0 / 9) < 1e-9 && placed.n == 9 && placed.normSize == 12, "\(placed)")
        let percentile = try #require(placed.percentile)
        let verdict = try #require(StudyVerdict.verdict("ad", study: study))
        #expect(
            verdict.lines.map(\.kpi) == [
                "viewers", "watched", "expressions.smile.mean", "expressions.smile.peak", "liking.top2box",
                "brand.correct",
            ])
        let liking = try #require(verdict.lines.first { $0.kpi == "liking.top2box" })
        let ordinal = NormComparison.ordinal(percentile)
        #expect(liking.value == "44 %" && liking.interval == "19-73 %" && liking.n == 9, "\(liking)")
        #expect(
            liking.sentence.hasPrefix(
                "44 % answered 6-7 of 1-7 to “Liked it?” (95 % 19-73 %, n 9), at the norm's \(ordinal) percentile ["),
            "\(liking.sentence)")
        let recall = try #require(verdict.lines.first { $0.kpi == "brand.correct" })
        #expect(recall.sentence.contains("chose the right answer, B, to “Which brand was it?” (95 % 31-86 %, n 8)"))
        // The norm holds no recall figure: said, with the floor.
        #expect(recall.norm.contains("the norm holds 0 stimuli with this figure (at least 10)"), "\(recall.norm)")
        #expect(
            verdict.lines.first?.sentence
                == "9 of 10 viewers included (1 left out, each with why in the table at the end).")
        #expect(verdict.caveats.contains { $0.hasPrefix("9 viewers: the intervals are wide") })
        #expect(verdict.caveats.contains { $0.hasPrefix("Unweighted") })
        #expect(!verdict.caveats.contains { $0.hasPrefix("No norm given") })
        // The page opens with it, then the summary; every closed question tallied further down.
        let page = try StudyPage.render(study, generator: "test")
        let opening = try #require(page.range(of: "<h2>Verdict: ad</h2>"))
        let summary = try #require(page.range(of: "<h2>Summary</h2>"))
        #expect(opening.lowerBound < summary.lowerBound)
        #expect(
            page.contains("<h2>Every closed question, tallied</h2>")
                && page.contains("<td>Which brand was it?</td><td>C</td>"))
    }

    /// Issue 98 item 2: a recall question's share right enters norms like a scale's top two boxes, from the sessions
    /// and from answers.csv's `correct` column alike, and the verdict places it.
    @Test func aRecallQuestion_entersTheNorm_asItsShareRight() throws {
        let (panel, sessions, questions) = try StudyKPIsTests.panel()
        let fromSessions = NormFigures.answers(sessions, questions: questions, stimulus: "ad", onlyStimulus: true)
        // answers.csv says which answers were right; read back, the norm's figures are the same.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-recall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("answers.csv").path
        try AnswerTable.csv(sessions, questions: questions).write(toFile: csv, atomically: true, encoding: .utf8)
        let fromCSV = try NormFigures.answers(csv: csv, stimulus: "ad", onlyStimulus: true)
        let recall = NormFigures.recall("brand")
        #expect(!fromSessions.isEmpty && fromSessions.mapValues { $0[recall] } == fromCSV.mapValues { $0[recall] })
        #expect(fromSessions.values.compactMap { $0[recall] }.count == 9, "9 answered the recall question")
        // A norm of 12 stimuli whose share right is 10, 15, ..., 65 %.
        let entries = (0..<12).map { (index: Int) -> NormEntry in
            NormEntry(
                id: "n\(index)/ad", fingerprint: "f\(index)", study: "n\(index)", stimulus: "ad", tags: [:],
                participants: 10, seconds: 6, bin: 1, allFrames: false, generator: "test", added: "",
                figures: [recall: Double(10 + 5 * index)], counts: [recall: 10])
        }
        var study = panel
        study.kpis = StudyKPIs.rows(study, sessions: sessions, questions: questions)
        let norm = NormComparison.Norm(source: "test", filters: [:], entries: entries)
        study.normComparison = NormComparison.rows(study, answers: ["ad": fromSessions], norm: norm)
        let placed = try #require(study.normComparison.first { $0.figure == recall })
        let kpi = try #require(study.kpis.first { $0.kpi == "brand.correct" && $0.group == "all" })
        #expect(abs(placed.value - kpi.value) < 1e-9 && placed.n == kpi.n && placed.normSize == 12, "\(placed) \(kpi)")
        let line = try #require(StudyVerdict.verdict("ad", study: study)?.lines.first { $0.kpi == "brand.correct" })
        #expect(!line.norm.isEmpty && line.sentence.contains("percentile"), "\(line)")
        #expect(NormComparison.words(recall) == "share right of brand")
    }

    @Test func withoutANorm_theVerdictSaysSo_andAStudyWithoutKPIsHasNone() throws {
        let study = try Self.study(norm: nil)
        let verdict = try #require(StudyVerdict.verdict("ad", study: study))
        #expect(verdict.lines.allSatisfy { $0.norm.isEmpty })
        #expect(verdict.caveats.contains { $0.hasPrefix("No norm given (mien study --norms)") })
        var bare = study
        bare.kpis = []
        #expect(StudyVerdict.all(bare).isEmpty)
        let page = try StudyPage.render(bare, generator: "test")
        #expect(!page.contains("class=\"verdict\""))
    }
}
