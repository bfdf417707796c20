import Foundation
import Mien
import MienStatistics

/// `comparisons.csv`: which advert did better on what, and which groups differ (issue 98 item 4).
///
/// - **Adverts, within participants** (`kind` `stimuli`): for each pair of stimuli, over the participants included
///   for both, each KPI measured on both: a share (top two boxes, a recall question right) by McNemar's exact test of
///   the paired answers; a mean (watched, a headline metric's mean and peak, a scale's mean) by Student's paired t,
///   with the difference's 95 % interval. A question counts for a pair when one with the same text, kind and points
///   was asked after each stimulus (questions at the end are answered once and compare nothing). The family is every
///   paired contrast of the study; `q` is Benjamini-Hochberg's over it.
/// - **Groups, within a stimulus** (`kind` `groups`): every pair of groups, each share by the two-proportion z test
///   (pooled) and each mean by Welch's t; `q` is Bonferroni's within the KPI's row (its pairs), as survey tables'
///   column-proportion letters are: a group's letters name the groups it is above at q < alpha.
///
/// `better` names the side that is higher where q < alpha; the difference is always stated.
package enum StudyComparisons {
    package static let header =
        "kind,stimulus,kpi,a,b,value_a,value_b,difference,low,high,n,method,statistic,p,q,better"

    package struct Row: Sendable, Equatable, Codable {
        /// `stimuli` (a and b are stimuli) or `groups` (a and b are groups of `stimulus`).
        package var kind: String
        /// The stimulus of a groups row; empty for a stimuli row.
        package var stimulus: String
        package var kpi: String
        package var a: String
        package var b: String
        package var valueA: Double
        package var valueB: Double
        /// a − b, in the KPI's units (percentage points for a share).
        package var difference: Double
        package var low: Double?
        package var high: Double?
        /// Pairs (stimuli) or both groups' participants (groups).
        package var n: Int
        package var method: String
        package var statistic: Double?
        package var p: Double
        package var q: Double = 1
        package var better: String?
    }

    /// One KPI's values per participant: a share's 0 or 1, or a mean's number.
    struct Measure {
        var kpi: String
        var share: Bool
        /// What matches it across stimuli: the KPI itself, or a question's text, kind and points.
        var key: String
        var values: [String: Double]
    }

    /// The KPIs of `stimulus` that a comparison can test, per included participant.
    static func measures(
        _ study: Study, stimulus: String, sessions: [String: ParticipantSession], questions: StudyQuestions?,
        endQuestions: Bool
    ) -> [Measure] {
        let included = study.participants.filter { $0.included && $0.row.stimulus == stimulus }
        var measures: [Measure] = []
        var watched: [String: Double] = [:]
        for series in included { if let share = series.onScreenShare { watched[series.row.participant] = share * 100 } }
        if !watched.isEmpty { measures.append(Measure(kpi: "watched", share: false, key: "watched", values: watched)) }
        let features = StudyFeatures.byParticipant(study, stimulus: stimulus)
        for metric in StudyFeatures.metrics {
            for feature in ["mean", "peak"] {
                var values: [String: Double] = [:]
                for (participant, figures) in features { values[participant] = figures["\(metric) \(feature)"] }
                if !values.isEmpty {
                    let kpi = "\(metric).\(feature)"
                    measures.append(Measure(kpi: kpi, share: false, key: kpi, values: values))
                }
            }
        }
        for question in questions?.questions ?? []
        where question.after == stimulus || (endQuestions && question.after == nil) {
            let key = "\(question.text)|\(question.typeName)"
            var top: [String: Double] = [:]
            var means: [String: Double] = [:]
            var right: [String: Double] = [:]
            for series in included {
                let participant = series.row.participant
                guard let answer = sessions[participant]?.answer(question.id) else { continue }
                if let score = answer.score, let points = question.points {
                    top[participant] = score >= StudyKPIs.topTwo(points: points) ? 1 : 0
                    means[participant] = Double(score)
                }
                if let correct = question.correct, let chosen = answer.choices, !chosen.isEmpty {
                    right[participant] = chosen == [correct] ? 1 : 0
                }
            }
            for (suffix, share, values) in [("top2box", true, top), ("mean", false, means), ("correct", true, right)]
            where !values.isEmpty {
                measures.append(
                    Measure(kpi: "\(question.id).\(suffix)", share: share, key: "\(key)|\(suffix)", values: values))
            }
        }
        return measures
    }

    /// Every comparison of `study`: the adverts' paired contrasts, then each stimulus's groups.
    package static func rows(
        _ study: Study, sessions: [ParticipantSession], questions: StudyQuestions?, alpha: Double
    ) -> [Row] {
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        let single = study.stimuli.count == 1
        let measured = Dictionary(
            uniqueKeysWithValues: study.stimuli.map {
                ($0, measures(study, stimulus: $0, sessions: byParticipant, questions: questions, endQuestions: single))
            })
        var paired: [Row] = []
        for (index, a) in study.stimuli.enumerated() {
            for b in study.stimuli.dropFirst(index + 1) {
                for first in measured[a] ?? [] {
                    guard let second = (measured[b] ?? []).first(where: { $0.key == first.key }),
                        let row = pairedRow(first, second, a: a, b: b)
                    else { continue }
                    paired.append(row)
                }
            }
        }
        let q = BenjaminiHochberg.adjust(paired.map(\.p))
        for index in paired.indices {
            paired[index].q = q[index]
            paired[index].better = verdict(paired[index], alpha: alpha)
        }
        var grouped: [Row] = []
        for stimulus in study.stimuli {
            let included = study.participants.filter { $0.included && $0.row.stimulus == stimulus }
            let groups = Set(included.compactMap(\.row.group)).sorted()
            guard groups.count >= 2 else { continue }
            var members: [String: String] = [:]
            for series in included { if let group = series.row.group { members[series.row.participant] = group } }
            for measure in measured[stimulus] ?? [] {
                var row: [Row] = []
                for (index, a) in groups.enumerated() {
                    for b in groups.dropFirst(index + 1) {
                        let valuesA = measure.values.filter { members[$0.key] == a }.map(\.value)
                        let valuesB = measure.values.filter { members[$0.key] == b }.map(\.value)
                        if let compared = groupRow(measure, valuesA, valuesB, stimulus: stimulus, a: a, b: b) {
                            row.append(compared)
                        }
                    }
                }
                let q = PairwiseTests.bonferroni(row.map(\.p))
                for index in row.indices {
                    row[index].q = q[index]
                    row[index].better = verdict(row[index], alpha: alpha)
                }
                grouped += row
            }
        }
        return paired + grouped
    }

    private static func verdict(_ row: Row, alpha: Double) -> String? {
        guard row.q < alpha, row.difference != 0 else { return nil }
        return row.difference > 0 ? row.a : row.b
    }

    /// A paired contrast over the participants measured on both.
    private static func pairedRow(_ first: Measure, _ second: Measure, a: String, b: String) -> Row? {
        let both = first.values.keys.filter { second.values[$0] != nil }.sorted()
        let valuesA = both.compactMap { first.values[$0] }
        let valuesB = both.compactMap { second.values[$0] }
        guard both.count >= 2 else { return nil }
        let n = Double(both.count)
        let meanA = valuesA.reduce(0, +) / n
        let meanB = valuesB.reduce(0, +) / n
        let kpi = first.kpi == second.kpi ? first.kpi : "\(first.kpi)/\(second.kpi)"
        if first.share {
            let onlyA = zip(valuesA, valuesB).filter { $0 == 1 && $1 == 0 }.count
            let onlyB = zip(valuesA, valuesB).filter { $0 == 0 && $1 == 1 }.count
            return Row(
                kind: "stimuli", stimulus: "", kpi: kpi, a: a, b: b, valueA: 100 * meanA, valueB: 100 * meanB,
                difference: 100 * (meanA - meanB), low: nil, high: nil, n: both.count, method: "McNemar exact",
                statistic: Double(min(onlyA, onlyB)), p: PairwiseTests.mcnemarExact(onlyA: onlyA, onlyB: onlyB))
        }
        guard let test = PairwiseTests.pairedT(valuesA, valuesB) else { return nil }
        return Row(
            kind: "stimuli", stimulus: "", kpi: kpi, a: a, b: b, valueA: meanA, valueB: meanB,
            difference: test.difference, low: test.low, high: test.high, n: both.count, method: "paired t",
            statistic: test.t, p: test.p)
    }

    /// Two groups of one stimulus compared on one KPI.
    private static func groupRow(
        _ measure: Measure, _ valuesA: [Double], _ valuesB: [Double], stimulus: String, a: String, b: String
    ) -> Row? {
        guard !valuesA.isEmpty, !valuesB.isEmpty else { return nil }
        let meanA = valuesA.reduce(0, +) / Double(valuesA.count)
        let meanB = valuesB.reduce(0, +) / Double(valuesB.count)
        let n = valuesA.count + valuesB.count
        if measure.share {
            let yesA = valuesA.filter { $0 == 1 }.count
            let yesB = valuesB.filter { $0 == 1 }.count
            let test = PairwiseTests.twoProportions(yesA: yesA, nA: valuesA.count, yesB: yesB, nB: valuesB.count)
            return Row(
                kind: "groups", stimulus: stimulus, kpi: measure.kpi, a: a, b: b, valueA: 100 * meanA,
                valueB: 100 * meanB, difference: 100 * (meanA - meanB), low: nil, high: nil, n: n,
                method: "two-proportion z (pooled)", statistic: test?.z, p: test?.p ?? 1)
        }
        guard let test = Descriptive.welch(valuesA, valuesB) else { return nil }
        let p = test.t.flatMap { t in test.degrees.map { StudentT.twoSidedP(t, degrees: $0) } } ?? 1
        return Row(
            kind: "groups", stimulus: stimulus, kpi: measure.kpi, a: a, b: b, valueA: meanA, valueB: meanB,
            difference: test.difference, low: test.low, high: test.high, n: n, method: "Welch t", statistic: test.t,
            p: p)
    }

    /// `comparisons.csv`'s text.
    package static func csv(_ rows: [Row]) -> String {
        // ResultTable.number writes an absent value as an empty cell.
        func number(_ value: Double?, _ places: Int = 4) -> String { ResultTable.number(value, places: places) }
        var lines = [header]
        for row in rows {
            lines.append(
                [
                    row.kind, row.stimulus, row.kpi, row.a, row.b, number(row.valueA, 2), number(row.valueB, 2),
                    number(row.difference, 2), number(row.low, 2), number(row.high, 2), "\(row.n)", row.method,
                    number(row.statistic), number(row.p), number(row.q), row.better ?? "",
                ].map(ResultTable.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How the comparisons were made, for study.json's notes and the page.
    package static func note(alpha: Double) -> String {
        "Comparisons (comparisons.csv): adverts within participants, over those included for both, a share by McNemar's exact test and a mean by Student's paired t (with the difference's 95 % interval), Benjamini-Hochberg over every paired contrast (false discoveries at \(ResultTable.number(alpha, places: 2))); groups within a stimulus, a share by the two-proportion z test (pooled) and a mean by Welch's t, Bonferroni within each KPI's pairs of groups, as column-proportion letters are; a side is named better only where its q is below \(ResultTable.number(alpha, places: 2)). Unweighted."
    }
}
