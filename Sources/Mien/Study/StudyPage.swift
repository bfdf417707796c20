import Foundation

/// A study as one self-contained HTML page (`study.html`).
///
/// Per stimulus, the charted metrics' curves with their 95 % bands per group, the share of participants in an
/// episode, a strip per participant, and the moments marked; then the participants' table. No script or style leaves the file; a self-check sets
/// `<html data-rendered="ok">` once every chart has something drawn (`scripts/check-report.sh` reads it).
package enum StudyPage {
    /// The most metrics charted per stimulus: those with the largest moments first.
    static let chartedPerStimulus = 8
    private static let width = 720.0
    private static let height = 190.0
    private static let left = 44.0
    private static let right = 12.0
    private static let top = 10.0
    private static let bottom = 24.0
    private static let palette = ["#333333", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    public static func render(_ study: Study, generator: String) -> String {
        var html = """
            <!doctype html>
            <html lang="en" data-rendered="pending"><head><meta charset="utf-8"><title>Mien study</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:\(Int(width) + 40)px}
            h2{margin-top:32px;border-bottom:1px solid #ccc} h3{margin:18px 0 4px;font-size:15px}
            svg{display:block;background:#fafafa} .note{color:#666;font-size:12px}
            table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
            .legend span{display:inline-block;margin-right:12px} .legend i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
            </style></head><body>
            <h1>Study</h1>
            <p class="note">\(escape(generator)); bins of \(number(study.settings.bin)) s; participants included when their
            face is measured in \(number(study.settings.minimumFaceShare * 100)) % of the stimulus or more; bands are 95 %
            intervals over participants; ● peaks; shaded: groups differ.</p>

            """
        for stimulus in study.stimuli { html += section(stimulus, study: study) }
        html += participantsTable(study)
        html += """
            <script>
            window.addEventListener("load", function () {
              var bad = [];
              document.querySelectorAll("svg.chart").forEach(function (svg) {
                if (svg.querySelectorAll("polyline, circle, rect[fill-opacity], polygon").length === 0) bad.push("empty chart " + svg.getAttribute("aria-label"));
              });
              document.documentElement.setAttribute("data-rendered", bad.length ? bad.join("; ") : "ok");
            });
            </script>
            </body></html>

            """
        return html
    }

    private static func section(_ stimulus: String, study: Study) -> String {
        let curves = study.curves.filter { $0.stimulus == stimulus }
        let panel = study.participants.filter { $0.row.stimulus == stimulus }
        let included = panel.filter(\.included)
        var html = "<section class=\"stimulus\"><h2>\(escape(stimulus))</h2>\n"
        html += "<p class=\"note\">\(included.count) of \(panel.count) participants included.</p>\n"
        guard !curves.isEmpty else { return html + "<p>No participant included: nothing to chart.</p></section>\n" }
        let groups = curves.reduce(into: [String]()) { if !$0.contains($1.group) { $0.append($1.group) } }
        let moments = study.moments.filter { $0.stimulus == stimulus }
        let measured = curves.reduce(into: [String]()) { if !$0.contains($1.metric) { $0.append($1.metric) } }
        // The metrics with the largest moments first (a difference's size, a peak's height), then the highest curves.
        func size(_ metric: String) -> Double {
            moments.filter { $0.metric == metric }.map { abs($0.value) }.max() ?? 0
        }
        let withMoments = measured.filter { metric in moments.contains { $0.metric == metric } }
            .sorted { size($0) > size($1) }
        let highest = measured.sorted { maximum(curves, $0) > maximum(curves, $1) }
        let charted = Array((withMoments + highest.filter { !withMoments.contains($0) }).prefix(chartedPerStimulus))
        let binCount = curves.filter { $0.metric == charted.first && $0.group == StudyManifest.wholePanel }.count
        let end = Double(binCount) * study.settings.bin
        html +=
            "<p class=\"legend\">"
            + groups.enumerated().map {
                "<span><i style=\"background:\(colour($0.offset))\"></i>\(escape($0.element))</span>"
            }
            .joined() + "</p>\n"
        for metric in charted {
            let isc = study.correlations.first {
                $0.stimulus == stimulus && $0.group == StudyManifest.wholePanel && $0.metric == metric
            }
            let range = MetricCatalog.entry(named: metric)?.range ?? 0...100
            html +=
                "<h3>\(escape(metric))"
                + (isc?.isc.map { " <span class=\"note\">ISC \(number($0)) (n = \(isc?.n ?? 0))</span>" } ?? "")
                + "</h3>\n"
            let lines = curves.filter { $0.metric == metric }
            html += chart(
                label: metric, end: end, range: range, groups: groups, points: lines, value: \.mean, band: true,
                moments: moments.filter { $0.metric == metric }, bin: study.settings.bin)
            if lines.contains(where: { $0.episodeShare != nil }) {
                html += "<p class=\"note\">share of participants in an episode (%)</p>\n"
                html += chart(
                    label: metric + " episodes", end: end, range: 0...100, groups: groups, points: lines,
                    value: { $0.episodeShare.map { $0 * 100 } }, band: false, moments: [], bin: study.settings.bin)
            }
            html += strip(metric, participants: included, range: range, bin: study.settings.bin, end: end)
        }
        return html + "</section>\n"
    }

    private static func maximum(_ curves: [StudyCurvePoint], _ metric: String) -> Double {
        curves.filter { $0.metric == metric }.compactMap(\.mean).max() ?? 0
    }

    private static func chart(
        label: String, end: Double, range: ClosedRange<Double>, groups: [String], points: [StudyCurvePoint],
        value: (StudyCurvePoint) -> Double?, band: Bool, moments: [StudyMoment], bin: Double
    ) -> String {
        func x(_ t: Double) -> Double { left + t / max(end, 1e-9) * (width - left - right) }
        func y(_ v: Double) -> Double {
            let clamped = min(max(v, range.lowerBound), range.upperBound)
            return top + (range.upperBound - clamped) / (range.upperBound - range.lowerBound) * (height - top - bottom)
        }
        var svg =
            "<svg class=\"chart\" aria-label=\"\(escape(label))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\">\n"
        for moment in moments where moment.kind == .difference {
            svg +=
                "<rect x=\"\(f(x(moment.start)))\" y=\"\(f(top))\" width=\"\(f(x(moment.end) - x(moment.start)))\" height=\"\(f(height - top - bottom))\" fill=\"#f5c542\" fill-opacity=\"0.25\"><title>\(escape(moment.group)) − \(escape(moment.otherGroup ?? "")): \(number(moment.value)) at \(number(moment.time)) s</title></rect>\n"
        }
        for tick in stride(
            from: range.lowerBound, through: range.upperBound, by: (range.upperBound - range.lowerBound) / 4)
        {
            svg +=
                "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\" stroke=\"#e4e4e4\"/><text x=\"\(f(left - 4))\" y=\"\(f(y(tick) + 4))\" font-size=\"10\" text-anchor=\"end\">\(number(tick))</text>\n"
        }
        let step = niceStep(end)
        for tick in stride(from: 0, through: end, by: step) {
            svg +=
                "<text x=\"\(f(x(tick)))\" y=\"\(f(height - 8))\" font-size=\"10\" text-anchor=\"middle\">\(number(tick)) s</text>\n"
        }
        for (index, group) in groups.enumerated() {
            let line = points.filter { $0.group == group }
            let colour = colour(index)
            if band {
                let upper = line.compactMap { point in point.high.map { (point.time + bin / 2, $0) } }
                let lower = line.compactMap { point in point.low.map { (point.time + bin / 2, $0) } }
                if upper.count > 1 {
                    let outline = (upper + lower.reversed()).map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(
                        separator: " ")
                    svg += "<polygon points=\"\(outline)\" fill=\"\(colour)\" fill-opacity=\"0.15\" stroke=\"none\"/>\n"
                }
            }
            let samples = line.compactMap { point in value(point).map { (point.time + bin / 2, $0) } }
            if samples.count > 1 {
                svg +=
                    "<polyline points=\"\(samples.map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.8\"/>\n"
            } else if let only = samples.first {
                svg += "<circle cx=\"\(f(x(only.0)))\" cy=\"\(f(y(only.1)))\" r=\"2.5\" fill=\"\(colour)\"/>\n"
            }
            for moment in moments where moment.kind == .peak && moment.group == group {
                svg +=
                    "<circle cx=\"\(f(x(moment.time + bin / 2)))\" cy=\"\(f(y(moment.value)))\" r=\"4.5\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"><title>peak \(number(moment.value)) at \(number(moment.time)) s (\(escape(group)))</title></circle>\n"
            }
        }
        return svg + "</svg>\n"
    }

    /// One row per included participant: each bin's value as the colour's strength.
    private static func strip(
        _ metric: String, participants: [ParticipantSeries], range: ClosedRange<Double>, bin: Double, end: Double
    ) -> String {
        let row = 9.0
        let plot = width - left - right
        var svg =
            "<svg class=\"strip\" viewBox=\"0 0 \(Int(width)) \(Int(Double(participants.count) * row + 4))\" width=\"\(Int(width))\" height=\"\(Int(Double(participants.count) * row + 4))\">\n"
        for (index, participant) in participants.enumerated() {
            svg +=
                "<text x=\"\(f(left - 4))\" y=\"\(f(Double(index) * row + row - 1))\" font-size=\"8\" text-anchor=\"end\">\(escape(participant.row.participant))</text>\n"
            for (bin_, value) in (participant.bins[metric] ?? []).enumerated() {
                guard let value else { continue }
                let strength = (value - range.lowerBound) / (range.upperBound - range.lowerBound)
                svg +=
                    "<rect x=\"\(f(left + Double(bin_) * bin / max(end, 1e-9) * plot))\" y=\"\(f(Double(index) * row))\" width=\"\(f(bin / max(end, 1e-9) * plot))\" height=\"\(f(row - 1))\" fill=\"#1f77b4\" fill-opacity=\"\(f(min(max(strength, 0), 1)))\"/>\n"
            }
        }
        return svg + "</svg>\n"
    }

    private static func participantsTable(_ study: Study) -> String {
        var html =
            "<h2>Participants</h2><table><tr><th>participant</th><th>stimulus</th><th>group</th><th>face share</th><th>included</th><th>notes</th></tr>\n"
        for series in study.participants {
            let status = series.exclusion.map { "no: " + escape($0) } ?? "yes"
            html +=
                "<tr><td>\(escape(series.row.participant))</td><td>\(escape(series.row.stimulus))</td><td>\(escape(series.row.group ?? ""))</td><td>\(number(series.faceShare * 100)) %</td><td>\(status)</td><td>\(escape(series.notes.joined(separator: "; ")))</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private static func colour(_ index: Int) -> String { palette[index % palette.count] }
    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
    private static func number(_ value: Double) -> String { ResultTable.number(value, places: 2) }

    private static func niceStep(_ span: Double) -> Double {
        let raw = max(span, 1e-3) / 8
        let magnitude = pow(10, floor(log10(raw)))
        return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
