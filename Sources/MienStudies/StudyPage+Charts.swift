import Foundation
import Mien
import Mustache

/// The study page's charts: curves with their bands and moments, and the share in episode.
extension StudyPage {
    /// One chart of a stimulus: each group's curve (solid where `minimum` participants or more are measured,
    /// dashed where fewer), its 95 % band over the solid runs, and the moments marked, laid out by the report's
    /// `LineChart` and drawn by its `ChartSVG` template; the stimulus's marks (`rules`) are lines across it.
    static func chart(
        label: String, end: Double, range: ClosedRange<Double>, groups: [String], points: [StudyCurvePoint],
        value: (StudyCurvePoint) -> Double?, band: Bool, moments: [StudyMoment], bin: Double, minimum: Int,
        template: MustacheTemplate, marks: [(label: String, range: ClosedRange<Double>)] = [], rules: [StudyMark] = []
    ) -> String {
        let scale = LineChart.Scale(timeRange: 0...max(end, 1e-9), valueRange: range)
        let bands = moments.filter { $0.kind == .difference }.map { moment in
            LineChart.Band(
                label:
                    "\(moment.group) − \(moment.otherGroup ?? ""): \(number(moment.value)) at \(number(moment.time)) s, "
                    + "\(stated("p", moment.p ?? 1))",
                colour: "#f5c542", x: scale.x(moment.start), y: LineChart.top,
                width: scale.x(moment.end) - scale.x(moment.start), height: scale.plotHeight)
        }
        var paths: [LineChart.Path] = []
        var areas: [LineChart.Area] = []
        var markers: [LineChart.Marker] = []
        var spans: [LineChart.Span] = []
        for (index, group) in groups.enumerated() {
            let line = points.filter { $0.group == group }
            let colour = colour(index)
            if band {
                // Bands only over runs of bins with enough participants: below that an interval says little.
                for run in runs(of: line, where: { $0.n >= minimum }) {
                    let upper = run.compactMap { point in point.high.map { (point.time + bin / 2, $0) } }
                    let lower = run.compactMap { point in point.low.map { (point.time + bin / 2, $0) } }
                    if upper.count > 1 {
                        areas.append(LineChart.Area(points: scale.points(upper + lower.reversed()), colour: colour))
                    }
                }
            }
            let (solid, thin) = segments(of: line, value: value, bin: bin, minimum: minimum)
            var path = LineChart.Path(
                name: group, colour: colour, runs: solid.filter { $0.count > 1 }.map(scale.points),
                dots: (solid + thin).filter { $0.count == 1 }.map { Point(x: scale.x($0[0].0), y: scale.y($0[0].1)) })
            path.dashedRuns = thin.filter { $0.count > 1 }.map(scale.points)
            path.strokeWidth = "1.8"
            path.dotRadius = "2.5"
            paths.append(path)
            for moment in moments where moment.kind == .peak && moment.group == group {
                markers.append(
                    LineChart.Marker(
                        label: "peak \(number(moment.value)) at \(number(moment.time)) s (\(group))", colour: colour,
                        x: scale.x(moment.time + bin / 2), y: scale.y(moment.value)))
            }
            for moment in moments where moment.kind == .response && moment.group == group {
                spans.append(
                    LineChart.Span(
                        label:
                            "\(group) responds \(number(moment.start))–\(number(moment.end)) s, \(stated("p", moment.p ?? 1))",
                        x1: scale.x(moment.start), x2: scale.x(moment.end),
                        y: LineChart.height - LineChart.bottom - 3 - Double(index) * 4))
            }
        }
        // Marks on the time line (stalls), each under the plot, a short one widened to a pixel or two.
        for (index, mark) in marks.enumerated() {
            let x1 = scale.x(mark.range.lowerBound)
            spans.append(
                LineChart.Span(
                    label: mark.label, x1: x1, x2: max(scale.x(min(mark.range.upperBound, end)), x1 + 2),
                    y: LineChart.height - LineChart.bottom - 3 - Double(groups.count + index % 4) * 4, colour: "#e07b00"
                ))
        }
        var chart = LineChart(
            title: label, scale: scale, paths: paths, bands: bands, areas: areas, markers: markers, spans: spans)
        chart.bandOpacity = 0.25
        chart.yLabel = "\(StudyPage.label(label)) (\(number(range.lowerBound))–\(number(range.upperBound)))"
        let right = LineChart.width - LineChart.right
        chart.rules = rules.map { mark in
            let x = scale.x(min(mark.time, end))
            let late = x > right - 60
            return LineChart.Rule(
                label: "\(mark.name) \(number(mark.time)) s", x: x, top: LineChart.top,
                bottom: LineChart.height - LineChart.bottom, textX: late ? x - 3 : x + 3, anchor: late ? "end" : "start"
            )
        }
        return ChartSVG.render(chart, with: template) + "\n"
    }

    /// The runs of consecutive points that satisfy `keep`.
    private static func runs(
        of line: [StudyCurvePoint], where keep: (StudyCurvePoint) -> Bool
    ) -> [[StudyCurvePoint]] {
        var runs: [[StudyCurvePoint]] = [[]]
        for point in line {
            if keep(point) {
                runs[runs.count - 1].append(point)
            } else if !(runs.last?.isEmpty ?? true) {
                runs.append([])
            }
        }
        return runs.filter { !$0.isEmpty }
    }

    /// A curve's segments, `(time, value)` at each bin's centre: solid where `minimum` participants or more are
    /// measured, thin where fewer; a bin without a value breaks the curve, and a change of kind shares its point.
    private static func segments(
        of line: [StudyCurvePoint], value: (StudyCurvePoint) -> Double?, bin: Double, minimum: Int
    ) -> (solid: [[(Double, Double)]], thin: [[(Double, Double)]]) {
        var solid: [[(Double, Double)]] = []
        var thin: [[(Double, Double)]] = []
        var segment: [(Double, Double)] = []
        var isThin = false
        func close() {
            if !segment.isEmpty {
                if isThin { thin.append(segment) } else { solid.append(segment) }
            }
        }
        for point in line {
            guard let v = value(point) else {
                close()
                segment = []
                continue
            }
            let pointThin = point.n < minimum
            if pointThin != isThin && !segment.isEmpty {
                let last = segment[segment.count - 1]
                close()
                segment = [last]
            }
            isThin = pointThin
            segment.append((point.time + bin / 2, v))
        }
        close()
        return (solid, thin)
    }

    static func colour(_ index: Int) -> String { palette[index % palette.count] }
    static func f(_ value: Double) -> String { String(format: "%.1f", value) }
    static func number(_ value: Double) -> String { ResultTable.number(value, places: 2) }
    static func signed(_ value: Double) -> String { (value > 0 ? "+" : "") + number(value) }
    static func probability(_ value: Double) -> String {
        value < 0.001 ? "< 0.001" : ResultTable.number(value, places: 3)
    }
    /// `p = 0.012` or `p < 0.001` (never "p = < 0.001").
    static func stated(_ name: String, _ value: Double) -> String { AnswerSummary.stated(name, value) }
}
