import Foundation
import Mustache

/// A study as one self-contained HTML page (`study.html`).
///
/// Per stimulus, the charted metrics' curves with their 95 % bands per group, the share of participants in an
/// episode, a strip per participant, and the moments marked; then the participants' table. No script or style leaves the file; a self-check sets
/// `<html data-rendered="ok">` once every chart has something drawn (`scripts/check-report.sh` reads it).
package enum StudyPage {
    /// The most metrics charted per stimulus when the study does not name them (`StudySettings.charts`).
    static let chartedPerStimulus = 8
    /// The charts' geometry is the report's (`LineChart`); the strips under them share its width and margins.
    static let width = LineChart.width
    static let left = LineChart.left
    static let right = LineChart.right
    /// The whole panel first, then the groups in order: the colours `mien.plot.study` uses too.
    static let palette = ["#333333", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    package static func render(_ study: Study, generator: String) throws -> String {
        let settings = study.settings
        let template = try ChartSVG.parsed()
        var html = """
            <!doctype html>
            <html lang="en" data-rendered="pending"><head><meta charset="utf-8"><title>Mien study</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:\(Int(width) + 40)px}
            h2{margin-top:32px;border-bottom:1px solid #ccc} h3{margin:18px 0 2px;font-size:15px}
            svg{display:block;background:#fafafa} .note{color:#555;font-size:12px} .thin{color:#a15c00}
            svg.chart{background:#fff} svg.chart text{font-size:10px;fill:#666}
            table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
            .legend span{display:inline-block;margin-right:12px} .legend i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
            .key i{display:inline-block;width:14px;height:10px;vertical-align:middle;border:1px solid #ccc;margin:0 2px}
            footer{margin-top:32px;color:#777;font-size:11px}
            </style></head><body>
            <h1>Study</h1>
            <p class="note">Curves are each group's mean over participants in bins of \(number(settings.bin)) s, with a band for the
            95 % interval where \(settings.minimumParticipants) or more participants are measured (a thinner curve, dashed, has fewer;
            bands stop at the metric's range). A participant counts when their face is measured for
            \(number(settings.minimumFaceShare * 100)) % of the stimulus or more.</p>
            <p class="note">Marked only where a test passes: <b>shaded</b>, two groups differ; <b>green underline</b>, the audience responds
            against its own first \(number(settings.baseline)) s; <b>○</b>, a peak whose band stands clear of the curve around it.
            Differences and responses are permutation tests (\(settings.correction == .cluster ? "cluster-based, the chance of any false finding per stimulus held at \(number(settings.alpha))" : "per bin with Benjamini-Hochberg, false discoveries held at \(number(settings.alpha))"),
            \(settings.permutations) permutations); each shows its p. <b>ISC</b> (inter-subject correlation) says how much participants
            rise and fall at the same moments (1: in step, 0: no more than chance would give); its p is against the same curves shifted in time.</p>

            """
        for stimulus in study.stimuli { html += section(stimulus, study: study, template: template) }
        html += participantsTable(study)
        html += """
            <footer>Made by \(escape(generator)); seed \(settings.seed). Every figure is in study.json and the CSV tables beside this page.</footer>
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

    /// The metrics charted for a stimulus: the study's choice, or those with the strongest moments (differences and
    /// responses by p, then peaks by height), then the highest curves.
    static func charted(_ stimulus: String, study: Study) -> [String] {
        let curves = study.curves.filter { $0.stimulus == stimulus }
        let measured = curves.reduce(into: [String]()) { if !$0.contains($1.metric) { $0.append($1.metric) } }
        if !study.settings.charts.isEmpty { return study.settings.charts.filter(measured.contains) }
        let moments = study.moments.filter { $0.stimulus == stimulus }
        func strength(_ metric: String) -> (Double, Double) {
            let tested = moments.filter { $0.metric == metric && $0.p != nil }
            let peaks = moments.filter { $0.metric == metric && $0.kind == .peak }
            return (-(tested.compactMap(\.p).min() ?? 2), peaks.map(\.value).max() ?? -1)
        }
        let withMoments = measured.filter { metric in moments.contains { $0.metric == metric } }
            .sorted { strength($0) > strength($1) }
        let highest = measured.sorted { maximum(curves, $0) > maximum(curves, $1) }
        return Array((withMoments + highest.filter { !withMoments.contains($0) }).prefix(chartedPerStimulus))
    }

    private static func section(_ stimulus: String, study: Study, template: MustacheTemplate) -> String {
        let curves = study.curves.filter { $0.stimulus == stimulus }
        let panel = study.participants.filter { $0.row.stimulus == stimulus }
        let included = panel.filter(\.included)
        var html = "<section class=\"stimulus\"><h2>\(escape(stimulus))</h2>\n"
        html += "<p class=\"note\">\(included.count) of \(panel.count) participants included.</p>\n"
        guard !curves.isEmpty else { return html + "<p>No participant included: nothing to chart.</p></section>\n" }
        let groups = curves.reduce(into: [String]()) { if !$0.contains($1.group) { $0.append($1.group) } }
        let moments = study.moments.filter { $0.stimulus == stimulus }
        let charted = charted(stimulus, study: study)
        let binCount = curves.filter { $0.metric == charted.first && $0.group == StudyManifest.wholePanel }.count
        let end = Double(binCount) * study.settings.bin
        html +=
            "<p class=\"note\">"
            + (study.settings.charts.isEmpty
                ? "Charted: the metrics with the strongest moments (at most \(chartedPerStimulus)); choose others with <code>mien study --chart METRIC ...</code>."
                : "Charted: the metrics the study names (<code>--chart</code>).") + "</p>\n"
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
            let entry = MetricCatalog.entry(named: metric)
            let range = entry?.range ?? 0...100
            let lines = curves.filter { $0.metric == metric }
            let thin = lines.contains { $0.n > 0 && $0.n < study.settings.minimumParticipants }
            html +=
                "<h3>\(escape(label(metric)))</h3>\n<p class=\"note\">\(escape(entry?.doc ?? "")) <code>\(escape(metric))</code>"
            if let isc, let value = isc.isc {
                html +=
                    " · ISC \(number(value))"
                    + (isc.low.map { low in " [\(number(low)), \(number(isc.high ?? low))]" } ?? "")
                    + (isc.p.map { ", p = \(probability($0))" } ?? "") + " (n = \(isc.n))"
            } else if let reason = isc?.reason {
                html += " · no ISC: \(escape(reason))"
            }
            if thin {
                html +=
                    " · <span class=\"thin\">thin: fewer than \(study.settings.minimumParticipants) participants in some bins (dashed, no band)</span>"
            }
            html += "</p>\n"
            let marked = moments.filter { $0.metric == metric }
            html += chart(
                label: metric, end: end, range: range, groups: groups, points: lines, value: \.mean, band: true,
                moments: marked, bin: study.settings.bin, minimum: study.settings.minimumParticipants,
                template: template)
            if lines.contains(where: { $0.episodeShare != nil }) {
                html += "<p class=\"note\">share of participants in an episode (%)</p>\n"
                html += chart(
                    label: metric + " episodes", end: end, range: 0...100, groups: groups, points: lines,
                    value: { $0.episodeShare.map { $0 * 100 } }, band: false, moments: [], bin: study.settings.bin,
                    minimum: study.settings.minimumParticipants, template: template)
            }
            html += momentList(marked)
            html += strip(
                metric, participants: included, groups: groups, range: range, bin: study.settings.bin, end: end)
        }
        return html + "</section>\n"
    }

    /// A metric's plain name: the catalog's last name part, words split (`expressions.lipCornerDepressor` →
    /// "Lip corner depressor").
    static func label(_ metric: String) -> String {
        let last = metric.split(separator: ".").last.map(String.init) ?? metric
        var words = ""
        for character in last {
            if character.isUppercase && !words.isEmpty { words += " " }
            words += String(character).lowercased()
        }
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// The metric's moments in words, each with its p or interval.
    private static func momentList(_ moments: [StudyMoment]) -> String {
        guard !moments.isEmpty else { return "" }
        let items = moments.map { moment -> String in
            let span = "\(number(moment.start))–\(number(moment.end)) s"
            switch moment.kind {
            case .difference:
                return
                    "\(escape(moment.group)) − \(escape(moment.otherGroup ?? "")) \(signed(moment.value)) at \(number(moment.time)) s, differ \(span), p = \(probability(moment.p ?? 1))"
            case .response:
                return
                    "\(escape(moment.group)) responds \(span) (\(signed(moment.value)) from baseline at \(number(moment.time)) s), p = \(probability(moment.p ?? 1))"
            case .peak:
                let height = moment.low.map { "[\(number($0)), \(number(moment.high ?? $0))]" } ?? ""
                let time = moment.timeLow.map { "[\(number($0)), \(number(moment.timeHigh ?? $0))] s" } ?? ""
                return
                    "\(escape(moment.group)) peaks at \(number(moment.time)) s \(time), height \(number(moment.value)) \(height)"
            }
        }
        return "<ul class=\"note\">" + items.map { "<li>\($0)</li>" }.joined() + "</ul>\n"
    }

    static func maximum(_ curves: [StudyCurvePoint], _ metric: String) -> Double {
        curves.filter { $0.metric == metric }.compactMap(\.mean).max() ?? 0
    }
}
