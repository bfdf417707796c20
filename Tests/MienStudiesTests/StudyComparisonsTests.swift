import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// Two adverts compared within participants and two groups within an advert (issue 98 item 4).
///
/// On a panel whose answers are counted by hand. The tests themselves are checked against scipy
/// and statsmodels by `make statistics-check`.
@Suite("Adverts and groups compared")
struct StudyComparisonsTests {
    static let questions = """
        question: liking_a
        after: a
        type: scale 7
        text: How much did you like it?
        anchors: no | yes
        question: liking_b
        after: b
        type: scale 7
        text: How much did you like it?
        anchors: no | yes
        """

    /// 12 participants, p0-p5 in group G and p6-p11 in H, each shown a then b.
    ///
    /// Liking of a: 7 for p0-p8, 2 for
    /// the rest; of b: 2 for all but p0 and p1. Watched: a 90 %, b 60 % plus a participant's own 0-11 %.
    static func panel() throws -> (Study, [ParticipantSession], StudyQuestions) {
        let questions = try StudyQuestions(parsing: Self.questions, file: "q.txt", stimuli: ["a", "b"])
        var series: [ParticipantSeries] = []
        var sessions: [ParticipantSession] = []
        for index in 0..<12 {
            let id = "p\(index)"
            let group = index < 6 ? "G" : "H"
            for (offset, stimulus) in ["a", "b"].enumerated() {
                let row = StudyManifest.Row(
                    line: 2 * index + offset + 2, recording: "\(id)-\(stimulus).mp4", participant: id,
                    stimulus: stimulus, onset: 0, group: group)
                var included = ParticipantSeries(row: row, exclusion: "")
                included.exclusion = nil
                included.onScreenShare = (stimulus == "a" ? 0.9 : 0.6) + Double(index) / 100
                series.append(included)
            }
            var session = ParticipantSession(
                participant: id, number: index + 1, group: group, order: ["a", "b"], tokenDigest: "d", started: "s")
            session.answers = [
                StudyAnswer(question: "liking_a", score: index < 9 ? 7 : 2, answered: "t"),
                StudyAnswer(question: "liking_b", score: index < 2 ? 7 : 2, answered: "t"),
            ]
            sessions.append(session)
        }
        return (Study(participants: series, settings: try StudySettings(permutations: 100)), sessions, questions)
    }

    @Test func adverts_areComparedWithinParticipants_andGroupsWithinAnAdvert() throws {
        let (study, sessions, questions) = try Self.panel()
        let rows = StudyComparisons.rows(study, sessions: sessions, questions: questions, alpha: 0.05)
        func row(_ kind: String, _ kpi: String, _ stimulus: String = "") throws -> StudyComparisons.Row {
            try #require(rows.first { $0.kind == kind && $0.kpi == kpi && $0.stimulus == stimulus }, "\(kind) \(kpi)")
        }
        // The same question after each advert, matched by its text: 9 of 12 liked a, 2 of 12 liked b; 7 liked a
        // only and none b only, so McNemar's exact p is 2 × 0.5^7.
        let liking = try row("stimuli", "liking_a.top2box/liking_b.top2box")
        #expect(liking.a == "a" && liking.b == "b" && liking.n == 12 && liking.method == "McNemar exact")
        #expect(abs(liking.valueA - 75) < 1e-9 && abs(liking.valueB - 100.0 / 6) < 1e-9, "\(liking)")
        #expect(abs(liking.p - 2 * pow(0.5, 7)) < 1e-12 && liking.statistic == 0, "\(liking)")
        #expect(liking.better == "a" && liking.q >= liking.p)
        // Watched: every participant watched a 30 points more: a paired t with no spread, p 0.
        let watched = try row("stimuli", "watched")
        #expect(abs(watched.difference - 30) < 1e-9 && watched.method == "paired t" && watched.better == "a")
        // Within a: G's 6 all liked it, H's 3 of 6: the two-proportion z test, Bonferroni over the one pair.
        let groups = try row("groups", "liking_a.top2box", "a")
        #expect(groups.a == "G" && groups.b == "H" && abs(groups.difference - 50) < 1e-9 && groups.n == 12)
        let pooled = 9.0 / 12
        let z = 0.5 / (pooled * (1 - pooled) * (2.0 / 6)).squareRoot()
        #expect(abs((groups.statistic ?? 0) - z) < 1e-9 && groups.q == groups.p, "\(groups)")
        // No face figure measured: no face row, never a fake 0.
        #expect(!rows.contains { $0.kpi.hasPrefix("expressions.") })
        let csv = StudyComparisons.csv(rows)
        #expect(csv.hasPrefix(StudyComparisons.header + "\nstimuli,,"))
        // The page says which advert did better on what, and puts the groups side by side with letters.
        var compared = study
        compared.comparisons = rows
        let page = try StudyPage.render(compared, generator: "test")
        #expect(
            page.contains("<h2>Which advert did better on what</h2>") && page.contains("<h2>Groups compared: a</h2>"))
    }

    @Test func oneStimulus_withoutGroups_comparesNothing() throws {
        let (study, sessions, questions) = try Self.panel()
        let single = Study(
            participants: study.participants.filter { $0.row.stimulus == "a" }.map { series in
                var series = series
                series.row.group = nil
                return series
            }, settings: study.settings)
        #expect(StudyComparisons.rows(single, sessions: sessions, questions: questions, alpha: 0.05).isEmpty)
    }
}
