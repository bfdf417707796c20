import Foundation
import Mien

/// What study.html's first screen says of a stimulus (issue 98 item 3): its key figures as a small table, each with
/// its 95 % interval and its place against the norm, one sentence each made from those numbers, and the caveats
/// that apply.
///
/// Made from `Study.kpis` (the `all` rows) and `Study.normComparison` alone, so the page says nothing study.json does
/// not hold. The figures shown, in this order: viewers; watched; smile's mean and the viewers' own smile peaks; each
/// scale's top-two-box share; each recall question's share right. The rest of kpis.csv (means of scales, every
/// option's share) is the page's tallies, further down.
package struct StudyVerdict: Sendable, Equatable {
    /// One figure of the table.
    package struct Line: Sendable, Equatable {
        /// kpis.csv's `kpi`.
        package var kpi: String
        /// What it is, in words ("Liked it? top 2 of 7").
        package var label: String
        /// The value and its interval as the table prints them ("44 %", "19-73 %").
        package var value: String
        package var interval: String
        package var n: Int
        /// Its place against the norm ("58th percentile [41, 72]", "↑ above the median by 12", "not placed: …"),
        /// or empty without a norm.
        package var norm: String
        /// The sentence made from those numbers.
        package var sentence: String
    }

    package var stimulus: String
    package var lines: [Line]
    package var caveats: [String]

    /// The norm figure each verdict KPI is placed by (`NormFigures`), if any.
    static func normFigure(_ row: StudyKPIs.Row) -> String? {
        if row.kpi == "watched" { return NormFigures.attention }
        if let points = row.points, row.kpi.hasSuffix(".top2box") {
            return NormFigures.topTwoBox(String(row.kpi.dropLast(".top2box".count)), points: points)
        }
        if row.question != nil, row.kpi.hasSuffix(".correct") {
            return NormFigures.recall(String(row.kpi.dropLast(".correct".count)))
        }
        for feature in ["mean", "peak"] where row.kpi.hasSuffix(".\(feature)") && row.question == nil {
            return "\(row.kpi.dropLast(feature.count + 1)) \(feature)"
        }
        return nil
    }

    /// The verdict of each stimulus with KPIs, in the study's order.
    package static func all(_ study: Study) -> [StudyVerdict] {
        study.stimuli.compactMap { verdict($0, study: study) }
    }

    /// The verdict of `stimulus`; nil when it has no KPIs (a study not collected through the page).
    package static func verdict(_ stimulus: String, study: Study) -> StudyVerdict? {
        // Weighted where the study was weighted (`--weight`), else as the panel came.
        let weighted = study.weighting != nil
        let kpis = study.kpis.filter { $0.stimulus == stimulus && $0.group == "all" && $0.weighted == weighted }
        guard !kpis.isEmpty else { return nil }
        let norms = study.normComparison.filter { $0.stimulus == stimulus }
        let panel = Set(study.participants.filter { $0.row.stimulus == stimulus }.map(\.row.participant)).count
        var lines: [Line] = []
        func add(_ row: StudyKPIs.Row, label: String, sentence: String, percent: Bool) {
            let unit = percent ? " %" : ""
            let places = percent ? 0 : 1
            let interval =
                row.low.flatMap { low in
                    row.high.map { "\(number(low, places))-\(number($0, places))\(unit)" }
                } ?? "no interval (n < 2)"
            // A norm places the unweighted figure: beside a weighted one it would say something of another number.
            let placed = weighted ? nil : normFigure(row).flatMap { figure in norms.first { $0.figure == figure } }
            lines.append(
                Line(
                    kpi: row.kpi, label: label, value: number(row.value, places) + unit, interval: interval, n: row.n,
                    norm: placed.map(normWords) ?? "",
                    sentence: sentence + " (" + (row.low == nil ? "" : "95 % \(interval), ") + "n \(row.n))"
                        + (placed.map { ", " + normWords($0) } ?? "") + "."))
        }
        for row in kpis {
            let value = number(row.value, 0)
            switch row.kpi {
            case "viewers":
                let included =
                    study.kpis.first {
                        $0.stimulus == stimulus && $0.group == "all" && $0.kpi == "viewers" && !$0.weighted
                    }?.n ?? row.n
                let left = panel - included
                let notWeighted = included - row.n
                let why = left > 0 ? "\(left) left out, each with why in the table at the end" : ""
                let sentence =
                    weighted
                    ? "\(row.n) of \(included) viewers included weighted, effective sample size \(number(row.value, 1))"
                        + (notWeighted > 0
                            ? "; \(notWeighted) without a value for a weighted attribute, left out of the weighted figures"
                            : "") + (why.isEmpty ? "." : "; \(why).")
                    : "\(row.n) of \(panel) viewers included" + (why.isEmpty ? "." : " (\(why)).")
                lines.append(
                    Line(
                        kpi: row.kpi, label: weighted ? "Viewers weighted" : "Viewers included", value: "\(row.n)",
                        interval: "", n: row.n, norm: "", sentence: sentence))
            case "watched":
                add(row, label: "Watched", sentence: "On average they watched \(value) % of it", percent: true)
            case "expressions.smile.mean":
                add(
                    row, label: "Smile, mean",
                    sentence: "Smile averaged \(number(row.value, 1)) of 100 over the stimulus", percent: false)
            case "expressions.smile.peak":
                add(
                    row, label: "Smile, each viewer's peak",
                    sentence: "Each viewer's highest smile averaged \(number(row.value, 1)) of 100", percent: false)
            default:
                if row.kpi.hasSuffix(".top2box"), let points = row.points, let question = row.question {
                    let top = StudyKPIs.topTwo(points: points)
                    let boxes = "\(top)-\(points == 11 ? 10 : points) of \(points == 11 ? "0-10" : "1-\(points)")"
                    add(
                        row, label: "“\(question)” top 2 (\(boxes))",
                        sentence: "\(value) % answered \(boxes) to “\(question)”", percent: true)
                } else if row.kpi.hasSuffix(".correct"), let question = row.question, let option = row.option {
                    add(
                        row, label: "“\(question)” right (\(option))",
                        sentence: "\(value) % chose the right answer, \(option), to “\(question)”", percent: true)
                }
            }
        }
        return StudyVerdict(stimulus: stimulus, lines: lines, caveats: caveats(stimulus, study: study, lines: lines))
    }

    /// A norm row in words: its percentile with its interval and, where the test passed by the stated minimum, the
    /// arrow and the size; else why it was not placed.
    static func normWords(_ row: NormComparison.Row) -> String {
        guard let percentile = row.percentile else { return "not placed against the norm: \(row.reason ?? "")" }
        let place =
            "at the norm's \(NormComparison.ordinal(percentile)) percentile [\(number(row.low ?? 0, 0)), \(number(row.high ?? 0, 0))] of \(row.normSize)"
        guard let direction = row.direction else { return place }
        return
            "\(direction == "above" ? "↑" : "↓") \(place), \(direction) its median by \(number(abs(row.difference ?? 0), 1)) (\(AnswerSummary.stated("q", row.q ?? 1)))"
    }

    /// The caveats that apply: the sample's size, tests not made, the norm, the weighting.
    static func caveats(_ stimulus: String, study: Study, lines: [Line]) -> [String] {
        var caveats: [String] = []
        let viewers = lines.first { $0.kpi == "viewers" }?.n ?? 0
        if viewers < AnswerRelations.minimumParticipants {
            caveats.append(
                "\(viewers) viewer\(viewers == 1 ? "" : "s"): the intervals are wide, and tests that need \(AnswerRelations.minimumParticipants) or more were not made; read these as a description of these viewers."
            )
        }
        let norms = study.normComparison.filter { $0.stimulus == stimulus }
        if norms.isEmpty {
            caveats.append("No norm given (mien study --norms): nothing is placed above or below one.")
        } else if lines.contains(where: { !$0.norm.isEmpty && $0.norm.hasPrefix("not placed") }) {
            caveats.append("Some figures could not be placed against the norm; the column says why.")
        }
        if let weighting = study.weighting {
            caveats.append(
                weighting.words
                    + " The curve and the tests are unweighted, and so is the norm's place of each figure: it is not shown beside a weighted one (the summary and norms.csv give it)."
            )
        } else {
            caveats.append("Unweighted: the panel as it came, not weighted to a population.")
        }
        return caveats
    }

    static func number(_ value: Double, _ places: Int) -> String { ResultTable.number(value, places: places) }
}
