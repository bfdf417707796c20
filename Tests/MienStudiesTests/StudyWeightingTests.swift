import Foundation
import MienStatistics
import Testing

@testable import Mien
@testable import MienStudies

/// Weights to a population's margins (issue 98 item 5): raking, the weighted KPIs by hand, and every refusal.
@Suite("Weights to a population's margins")
struct StudyWeightingTests {
    /// `StudyKPIsTests.panel()` with attributes: p0-p5 female, p6-p8 male, p9 (excluded) female; ages alternate.
    static func panel() throws -> (Study, [ParticipantSession], StudyQuestions) {
        var (study, sessions, questions) = try StudyKPIsTests.panel()
        for index in study.participants.indices {
            let number = Int(study.participants[index].row.participant.dropFirst()) ?? 0
            study.participants[index].row.attributes = [
                "sex": number < 6 || number == 9 ? "female" : "male", "age": number % 2 == 0 ? "18-34" : "35+",
            ]
        }
        return (study, sessions, questions)
    }

    static func refusal(_ make: () throws -> Any) -> String {
        do {
            _ = try make()
            return ""
        } catch {
            return (error as? MienError)?.message ?? "\(error)"
        }
    }

    @Test func aTwoGroupMargin_weightsAsByHand_andTheKPIsFollow() throws {
        let (study, sessions, questions) = try Self.panel()
        let weights = try StudyWeighting(arguments: ["sex=female:0.5,male:0.5"], cap: 5).weights(for: study)
        // 6 women and 3 men included, to be half and half of 9: each woman 4.5 / 6 = 0.75, each man 4.5 / 3 = 1.5.
        #expect(weights.weights.count == 9 && weights.leftOut.isEmpty)
        for (participant, weight) in weights.weights {
            let number = Int(participant.dropFirst()) ?? 0
            #expect(abs(weight - (number < 6 ? 0.75 : 1.5)) < 1e-9, "\(participant) \(weight)")
        }
        #expect(abs(weights.effectiveSize - 81.0 / (6 * 0.5625 + 3 * 2.25)) < 1e-9)
        let rows = StudyKPIs.rows(study, sessions: sessions, questions: questions, weights: weights)
        func row(_ kpi: String, weighted: Bool) throws -> StudyKPIs.Row {
            try #require(rows.first { $0.kpi == kpi && $0.group == "all" && $0.weighted == weighted })
        }
        // Liking's top two (6-7): p0, p1, p5 (women) and p6 (a man): (3 × 0.75 + 1.5) / 9 by hand.
        let top = try row("liking.top2box", weighted: true)
        #expect(abs(top.value - 100 * (3 * 0.75 + 1.5) / 9) < 1e-9 && top.n == 9, "\(top)")
        #expect(try row("liking.top2box", weighted: false).value == 400.0 / 9)
        // The mean: Σ w x / Σ w over liking 7, 6, 5, 4, 3, 7 (women) and 6, 2, 1 (men).
        let mean = try row("liking.mean", weighted: true)
        #expect(abs(mean.value - (0.75 * 32 + 1.5 * 9) / 9) < 1e-9, "\(mean)")
        #expect(abs(try row("viewers", weighted: true).value - weights.effectiveSize) < 1e-9)
        #expect(try row("viewers", weighted: false).value == 9)
        // Two margins at once: both met, the weights averaging 1.
        let both = try StudyWeighting(arguments: ["sex=female:0.5,male:0.5", "age=18-34:0.3,35+:0.7"], cap: 5)
            .weights(for: study)
        let total = both.weights.values.reduce(0, +)
        let men = both.weights.filter { (Int($0.key.dropFirst()) ?? 0) >= 6 }.values.reduce(0, +)
        let young = both.weights.filter { (Int($0.key.dropFirst()) ?? 0) % 2 == 0 }.values.reduce(0, +)
        #expect(abs(total - 9) < 1e-6 && abs(men / total - 0.5) < 1e-9 && abs(young / total - 0.3) < 1e-9)
    }

    /// The verdict of a weighted study: the weighted figures, who was weighted, and no norm place beside them (a
    /// norm places the unweighted figure).
    @Test func aWeightedVerdict_saysWhoWasWeighted_andPlacesNoWeightedFigureAgainstTheNorm() throws {
        var (study, sessions, questions) = try Self.panel()
        study.participants[0].row.attributes?["sex"] = nil  // p0 gave no sex: left out of the weighted figures
        let weights = try StudyWeighting(arguments: ["sex=female:0.5,male:0.5"], cap: 5).weights(for: study)
        #expect(weights.leftOut == ["p0"] && weights.weights.count == 8)
        study.weighting = weights
        study.kpis = StudyKPIs.rows(study, sessions: sessions, questions: questions, weights: weights)
        let answers = NormFigures.answers(sessions, questions: questions, stimulus: "ad", onlyStimulus: true)
        study.normComparison = NormComparison.rows(study, answers: ["ad": answers], norm: StudyVerdictTests.norm())
        let verdict = try #require(StudyVerdict.verdict("ad", study: study))
        let viewers = try #require(verdict.lines.first)
        #expect(
            viewers.sentence.hasPrefix(
                "8 of 9 viewers included weighted, effective sample size ")
                && viewers.sentence.hasSuffix(
                    "; 1 without a value for a weighted attribute, left out of the weighted figures; 1 left out, each with why in the table at the end."
                ),
            "\(viewers.sentence)")
        let liking = try #require(verdict.lines.first { $0.kpi == "liking.top2box" })
        let weighted = try #require(study.kpis.first { $0.kpi == "liking.top2box" && $0.group == "all" && $0.weighted })
        #expect(liking.value == ResultTable.number(weighted.value, places: 0) + " %" && liking.norm.isEmpty)
        #expect(!liking.sentence.contains("percentile"))
        #expect(verdict.caveats.contains { $0.hasPrefix("Weighted to the margins of sex by raking") })
    }

    @Test func badMargins_andACapThatCannotBeMet_areRefusedNamingWhat() throws {
        let (study, _, _) = try Self.panel()
        #expect(
            Self.refusal { try StudyWeighting(arguments: ["sex=female:0.5,male:0.4"], cap: 5) }
                .contains("--weight sex=female:0.5,male:0.4: the shares sum to 0.9, not 1"))
        #expect(Self.refusal { try StudyWeighting(arguments: ["sex"], cap: 5) }.contains("write NAME=VALUE:SHARE"))
        #expect(Self.refusal { try StudyWeighting(arguments: ["sex=female:1"], cap: 0.5) }.contains("--weight-cap 0.5"))
        #expect(
            Self.refusal {
                try StudyWeighting(arguments: ["region=north:0.5,south:0.5"], cap: 5).weights(for: study)
            }.contains("--weight region: no included participant has that attribute (theirs: age, sex)"))
        #expect(
            Self.refusal { try StudyWeighting(arguments: ["sex=female:1"], cap: 5).weights(for: study) }
                .contains("participants have sex=male, which the margin does not list (female)"))
        #expect(
            Self.refusal {
                try StudyWeighting(arguments: ["sex=female:0.4,male:0.4,other:0.2"], cap: 5).weights(for: study)
            }.contains("--weight sex=other: no included participant has it"))
        // 3 men to be 90 % of 9: each would weigh 2.7, above a cap of 2.
        #expect(
            Self.refusal { try StudyWeighting(arguments: ["sex=female:0.1,male:0.9"], cap: 2).weights(for: study) }
                .contains("--weight-cap 2: the margins cannot be met with no weight above 2 times the mean"))
    }

    @Test func raking_meetsItsMarginsUnderAFeasibleCap() {
        // 3 × 2 categories, 30 people unevenly spread; targets met with no weight above 2.5.
        let age = (0..<30).map { $0 % 3 == 0 ? 0 : ($0 % 5 == 0 ? 2 : 1) }
        let sex = (0..<30).map { $0 < 20 ? 0 : 1 }
        let targets = [[0.3, 0.4, 0.3], [0.5, 0.5]]
        let outcome = Raking.rake(categories: [age, sex], targets: targets, cap: 2.5)
        #expect(outcome.converged && outcome.weights.allSatisfy { $0 <= 2.5 + 1e-9 }, "\(outcome)")
        let total = outcome.weights.reduce(0, +)
        for (dimension, shares) in targets.enumerated() {
            for (category, share) in shares.enumerated() {
                let sum = zip([age, sex][dimension], outcome.weights).filter { $0.0 == category }.map(\.1).reduce(0, +)
                #expect(abs(sum / total - share) < 1e-9)
            }
        }
    }
}
