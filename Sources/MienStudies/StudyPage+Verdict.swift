/// The page's first screen, per stimulus (`StudyVerdict`), and the closed questions tallied further down (issue 98
/// item 3).
import Mien

extension StudyPage {
    struct VerdictView {
        var name: String
        var lines: [StudyVerdict.Line]
        var caveats: [TextView]
        /// The stimulus's first charted metric (smile unless the study names others), drawn with its marks.
        var chartLabel: String
        var chart: String
        var hasChart: Bool
        var hasNorm: Bool
    }

    /// One answer's share (or a scale's mean) over a stimulus's included participants who answered.
    struct TallyView {
        var stimulus: String
        var question: String
        var answer: String
        var value: String
        var interval: String
        var n: Int
    }

    static func verdicts(_ study: Study, sections: [SectionView]) -> [VerdictView] {
        StudyVerdict.all(study).map { verdict in
            let metric = sections.first { $0.name == verdict.stimulus }?.metrics.first
            let marks = study.settings.marks.filter { $0.stimulus == verdict.stimulus }
            let marked =
                marks.isEmpty
                ? ""
                : "; marks: "
                    + marks.map { "\($0.name) at \(number($0.time)) s" }.joined(
                        separator: ", ")
            return VerdictView(
                name: verdict.stimulus, lines: verdict.lines, caveats: verdict.caveats.map(TextView.init),
                chartLabel: metric.map {
                    "\($0.label), the panel's mean in \(number(study.settings.bin)) s bins with its 95 % band\(marked)"
                } ?? "",
                chart: metric?.chart ?? "", hasChart: metric != nil,
                hasNorm: verdict.lines.contains { !$0.norm.isEmpty })
        }
    }

    /// Every closed question's answers (kpis.csv's `all` rows): each option's share, each scale's top two boxes and
    /// mean, and a recall question's share right.
    static func tallies(_ study: Study) -> [TallyView] {
        study.kpis.filter { $0.group == "all" && $0.question != nil }.map { row in
            let mean = row.kpi.hasSuffix(".mean")
            let answer =
                mean
                ? "mean of \(row.points.map { $0 == 11 ? "0-10" : "1-\($0)" } ?? "")"
                : row.kpi.hasSuffix(".top2box")
                    ? "top 2 boxes" : row.kpi.hasSuffix(".correct") ? "right (\(row.option ?? ""))" : row.option ?? ""
            let places = mean ? 2 : 0
            let unit = mean ? "" : " %"
            let interval =
                row.low.flatMap { low in
                    row.high.map {
                        "\(ResultTable.number(low, places: places))-\(ResultTable.number($0, places: places))\(unit)"
                    }
                } ?? ""
            return TallyView(
                stimulus: row.stimulus, question: row.question ?? "", answer: answer,
                value: ResultTable.number(row.value, places: places) + unit, interval: interval, n: row.n)
        }
    }
}
