import Foundation
import Testing

@testable import Mien

/// relations.csv and prediction.csv on a constructed panel: 24 participants whose smiles' height sets their liking.
@Suite("Faces against answers: the tables")
struct AnswerRelationsTests {
    static func panel() throws -> (Study, [ParticipantSession], StudyQuestions) {
        let questions = try StudyQuestions(
            parsing: """
                question: liking
                after: ad
                type: scale 7
                text: Liked it?
                anchors: no | yes
                question: seen
                type: single
                text: Seen it?
                options: Yes | No
                """, file: "q.txt", stimuli: ["ad"])
        var series: [ParticipantSeries] = []
        var sessions: [ParticipantSession] = []
        for index in 0..<24 {
            let id = "p\(index)"
            let height = Double(index % 12) * 8 + Double(index / 12)  // 0...89, every participant different
            let smile: [Double?] = (0..<8).map { bin in height * (bin < 4 ? 0.5 : 1) }
            let joy: [Double?] = (0..<8).map { bin in Double((index * 7 + bin * 3) % 11) * 9 }  // unrelated
            series.append(
                ParticipantSeries(
                    row: .init(line: index + 2, recording: "\(id).mp4", participant: id, stimulus: "ad", onset: 0),
                    faceId: 0, frames: 80, faceFrames: 80, faceShare: 1, facesSeen: 1, framesWithSeveralFaces: 0,
                    exclusion: nil, notes: [], binCount: 8, bins: ["expressions.smile": smile, "emotions.joy": joy],
                    episodeBins: [:], means: [:], episodeCounts: [:]))
            var session = ParticipantSession(
                participant: id, number: index + 1, group: nil, order: ["ad"], tokenDigest: "d", started: "s")
            session.answers = [
                StudyAnswer(question: "liking", score: 1 + Int(height / 90 * 7), answered: "t"),
                StudyAnswer(question: "seen", choices: ["No"], answered: "t"),
            ]
            sessions.append(session)
        }
        let study = Study(participants: series, settings: try StudySettings(permutations: 100))
        return (study, sessions, questions)
    }

    static func rows(_ csv: String) -> [[String: String]] {
        let lines = csv.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test func relations_findTheSmileThatSetsTheLiking_andNotTheJoy() throws {
        let (study, sessions, questions) = try Self.panel()
        let rows = Self.rows(AnswerRelations.csv(study, sessions: sessions, questions: questions))
        #expect(Set(rows.map { $0["question"] }) == ["liking"], "only scale questions are related")
        let mean = try #require(rows.first { $0["metric"] == "expressions.smile" && $0["feature"] == "mean" })
        #expect(mean["n"] == "24" && Double(mean["rho"] ?? "") ?? 0 > 0.95 && mean["passes"] == "1", "\(mean)")
        let joy = try #require(rows.first { $0["metric"] == "emotions.joy" && $0["feature"] == "mean" })
        #expect(joy["passes"] == "0", "\(joy)")
        // q is p corrected over the features: never below p.
        for row in rows where !(row["p"] ?? "").isEmpty {
            #expect((Double(row["q"] ?? "") ?? 0) >= (Double(row["p"] ?? "") ?? 1) - 1e-12)
        }
    }

    @Test func prediction_isShownWithItsCrossValidatedFigure() throws {
        let (study, sessions, questions) = try Self.panel()
        let rows = Self.rows(AnswerPrediction.csv(study, sessions: sessions, questions: questions))
        let liking = try #require(rows.first)
        #expect(rows.count == 1 && liking["question"] == "liking" && liking["n"] == "24")
        let auc = try #require(Double(liking["auc"] ?? ""))
        let (low, high) = (Double(liking["low"] ?? "") ?? 2, Double(liking["high"] ?? "") ?? -1)
        #expect(auc > 0.85 && low <= auc && auc <= high && liking["passes"] == "1", "\(liking)")
        // Below the floor: said, no figure.
        let few = try Self.panel()
        let small = Study(participants: Array(few.0.participants.prefix(12)), settings: few.0.settings)
        let refused = Self.rows(AnswerPrediction.csv(small, sessions: few.1, questions: few.2))
        #expect(refused.first?["auc"] == "" && refused.first?["reason"]?.hasPrefix("\"not testable: 12") == true)
    }
}
