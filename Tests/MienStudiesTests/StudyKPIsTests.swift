import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// kpis.csv on a constructed panel whose answers are counted by hand (issue 98 item 1, in part).
@Suite("A study's KPIs: the table")
struct StudyKPIsTests {
    static let questions = """
        question: liking
        after: ad
        type: scale 7
        text: Liked it?
        anchors: no | yes
        question: brand
        type: single
        text: Which brand was it?
        options: A | B | C
        correct: B
        question: notes
        type: text
        text: Anything else?
        """

    /// 10 participants, p0-p5 in group A and p6-p9 in B; p9's viewing is excluded (its answers do not count); p6
    /// left the recall question unanswered.
    static func panel() throws -> (Study, [ParticipantSession], StudyQuestions) {
        let questions = try StudyQuestions(parsing: Self.questions, file: "q.txt", stimuli: ["ad"])
        let liking = [7, 6, 5, 4, 3, 7, 6, 2, 1, 7]
        let brand: [String?] = ["B", "B", "A", "B", "C", "B", nil, "B", "A", "B"]
        var series: [ParticipantSeries] = []
        var sessions: [ParticipantSession] = []
        for index in 0..<10 {
            let id = "p\(index)"
            let group = index < 6 ? "A" : "B"
            let row = StudyManifest.Row(
                line: index + 2, recording: "\(id).mp4", participant: id, stimulus: "ad", onset: 0, group: group)
            if index == 9 {
                series.append(ParticipantSeries(row: row, exclusion: "measured too little"))
            } else {
                var included = ParticipantSeries(row: row, exclusion: "")
                included.exclusion = nil
                included.onScreenShare = Double(index) / 10
                // Smile in two bins: p_i's mean is 5i + 5, its peak 10i (p0: 10, 0; the others: 10i, 10).
                included.binCount = 2
                included.bins["expressions.smile"] = index == 0 ? [10, 0] : [Double(10 * index), 10]
                series.append(included)
            }
            var session = ParticipantSession(
                participant: id, number: index + 1, group: group, order: ["ad"], tokenDigest: "d", started: "s")
            session.answers = [StudyAnswer(question: "liking", score: liking[index], answered: "t")]
            if let chosen = brand[index] {
                session.answers?.append(StudyAnswer(question: "brand", choices: [chosen], answered: "t"))
            }
            sessions.append(session)
        }
        let study = Study(participants: series, settings: try StudySettings(permutations: 100))
        return (study, sessions, questions)
    }

    /// Wilson's 95 % score interval, written out here from its formula (percent).
    static func wilson(_ yes: Int, _ n: Int) -> (Double, Double) {
        let z = 1.959963984540054
        let (p, count) = (Double(yes) / Double(n), Double(n))
        let centre = (p + z * z / (2 * count)) / (1 + z * z / count)
        let half = z / (1 + z * z / count) * (p * (1 - p) / count + z * z / (4 * count * count)).squareRoot()
        return (100 * (centre - half), 100 * (centre + half))
    }

    @Test func kpis_areTheHandCounts_withTheirIntervals() throws {
        let (study, sessions, questions) = try Self.panel()
        let rows = StudyKPIs.rows(study, sessions: sessions, questions: questions)
        func row(_ kpi: String, _ group: String = "all") throws -> StudyKPIs.Row {
            try #require(rows.first { $0.kpi == kpi && $0.group == group }, "\(kpi) \(group)")
        }
        #expect(Set(rows.map(\.group)) == ["all", "A", "B"])
        #expect(try row("viewers").value == 9 && row("viewers", "A").value == 6 && row("viewers", "B").value == 3)
        // Liking, 7 points: 6-7 is the top two boxes; p0, p1, p5, p6 of the 9 included (p9's 7 does not count).
        let top = try row("liking.top2box")
        let expected = Self.wilson(4, 9)
        #expect(top.n == 9 && abs(top.value - 400.0 / 9) < 1e-9)
        #expect(abs((top.low ?? 0) - expected.0) < 1e-6 && abs((top.high ?? 0) - expected.1) < 1e-6, "\(top)")
        #expect(try row("liking.top2box", "A").value == 50)  // p0, p1, p5 of 6
        // The mean, with Student's t interval (t(8, 0.975) = 2.306004).
        let mean = try row("liking.mean")
        let scores = [7.0, 6, 5, 4, 3, 7, 6, 2, 1]
        let average = scores.reduce(0, +) / 9
        let sd = (scores.map { ($0 - average) * ($0 - average) }.reduce(0, +) / 8).squareRoot()
        #expect(abs(mean.value - 41.0 / 9) < 1e-9)
        #expect(abs((mean.high ?? 0) - (average + 2.306004 * sd / 3)) < 1e-4, "\(mean)")
        // Recall: B is correct; 8 included answered (p6 did not), 5 chose B.
        let recall = try row("brand.correct")
        #expect(recall.n == 8 && recall.value == 62.5, "\(recall)")
        #expect(try row("brand=A").value == 25 && row("brand=C").value == 12.5)
        // Watched: the mean onScreen share, percent (p0-p8: 0 %, 10 %, ..., 80 %).
        #expect(abs(try row("watched").value - 40) < 1e-9)
        // The emotional response: features.csv's per-participant mean and peak, averaged (p0-p8).
        let means: [Double] = [5, 10, 15, 20, 25, 30, 35, 40, 45]  // (10i + 10) / 2, p0's (10 + 0) / 2
        let peaks: [Double] = [10, 10, 20, 30, 40, 50, 60, 70, 80]
        #expect(abs(try row("expressions.smile.mean").value - means.reduce(0, +) / 9) < 1e-9)
        #expect(abs(try row("expressions.smile.peak").value - peaks.reduce(0, +) / 9) < 1e-9)
        #expect(try row("expressions.smile.peak", "B").n == 3)
        #expect(!rows.contains { $0.kpi.hasPrefix("emotions.joy") })  // not measured: absent, never 0
        // No figure from a free-text question; every share within its interval.
        #expect(!rows.contains { $0.kpi.hasPrefix("notes") })
        for row in rows where row.low != nil {
            #expect((row.low ?? 0) <= row.value + 1e-9 && row.value <= (row.high ?? 0) + 1e-9, "\(row)")
        }
        let csv = StudyKPIs.csv(rows)
        #expect(csv.hasPrefix("stimulus,group,kpi,value,low,high,n,weighted\n"))
        #expect(csv.contains("ad,all,brand.correct,62.5,30.57,86.32,8,false\n"))
    }

    @Test func aCorrectOption_thatIsNoneOfTheOptions_orOnAScale_isRefusedNamingIt() {
        func refusal(_ text: String) -> String {
            do {
                _ = try StudyQuestions(parsing: text, file: "q.txt", stimuli: ["ad"])
                return ""
            } catch {
                return (error as? MienError)?.message ?? "\(error)"
            }
        }
        let wrong = refusal(Self.questions.replacingOccurrences(of: "correct: B", with: "correct: D"))
        #expect(wrong.contains("the correct option 'D' is not one of its options (A | B | C)"), "\(wrong)")
        let scale = refusal(
            "question: liking\ntype: scale 7\ntext: Liked it?\nanchors: no | yes\ncorrect: 7")
        #expect(scale.contains("only a single choice has a correct option"), "\(scale)")
    }
}
