import Foundation
import Mien
import MienStatistics

/// The one-screen summary study.html opens with: per stimulus, in plain words, who watched, the headline curves, the
/// responses that passed, the marks, the answers and how the faces relate to them, and what could not be tested.
extension StudyPage {
    struct SummaryView {
        var name: String
        var lines: [TextView]
    }

    /// The mean of the whole panel's curve of `metric` over bins starting within [from, to).
    static func curveMean(_ curves: [StudyCurvePoint], _ metric: String, from: Double, to: Double) -> Double? {
        let values = curves.filter {
            $0.metric == metric && $0.group == StudyManifest.wholePanel && $0.time >= from - 1e-9 && $0.time < to - 1e-9
        }.compactMap(\.mean)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// The stimulus's pictures as one SVG row on the charts' time axis, each centred on its time (empty: none).
    static func pictures(_ pictures: [StimulusStrip.Picture], end: Double) -> String {
        guard !pictures.isEmpty, end > 0 else { return "" }
        let scale = LineChart.Scale(timeRange: 0...end, valueRange: 0...1)
        let side = min(96, (width - left - right) / Double(pictures.count))
        let images = pictures.map { picture in
            let x = min(max(scale.x(picture.time) - side / 2, left), width - right - side)
            return
                "<image x=\"\(f(x))\" y=\"0\" width=\"\(f(side))\" height=\"\(f(side))\" href=\"data:image/jpeg;base64,\(Data(picture.jpeg).base64EncodedString())\"><title>\(number(picture.time)) s</title></image>"
        }
        return
            "<svg class=\"pictures\" role=\"img\" aria-label=\"The stimulus at \(pictures.map { number($0.time) + " s" }.joined(separator: ", "))\" viewBox=\"0 0 \(f(width)) \(f(side))\" width=\"\(f(width))\" height=\"\(f(side))\">"
            + images.joined() + "</svg>"
    }

    static func summary(_ stimulus: String, study: Study) -> SummaryView {
        let settings = study.settings
        let curves = study.curves.filter { $0.stimulus == stimulus }
        let panel = study.participants.filter { $0.row.stimulus == stimulus }
        let included = panel.filter(\.included)
        var lines: [String] = []
        var viewers = "\(included.count) viewer\(included.count == 1 ? "" : "s") included of \(panel.count)"
        let shares = included.compactMap(\.onScreenShare).sorted()
        if !shares.isEmpty {
            viewers +=
                "; they watched a median \(number(shares[shares.count / 2] * 100)) % of it (on screen, eyes open)"
        }
        lines.append(viewers + ".")
        let metrics = charted(stimulus, study: study)
        for metric in firstCharted {
            let points = curves.filter { $0.metric == metric && $0.group == StudyManifest.wholePanel }
            let average = Descriptive.meanInterval(included.compactMap { $0.means[metric] })
            guard let top = points.filter({ $0.mean != nil }).max(by: { ($0.mean ?? 0) < ($1.mean ?? 0) }),
                let mean = average.mean
            else { continue }
            lines.append(
                "\(label(metric)): highest \(number(top.mean ?? 0))\(AnswerSummary.interval(top.low, top.high)) at \(number(top.time)) s "
                    + "(the panel's curve); \(number(mean))\(AnswerSummary.interval(average.low, average.high)) on average (the viewers' means)."
            )
        }
        // The stated ranking (issue 95 item 4): group differences first, then responses, three lines in all, each
        // kind smallest p first, then largest effect, among the charted metrics and effects of `--min-effect` or more.
        let tested = study.moments.filter {
            $0.stimulus == stimulus && $0.kind != .peak && shown($0, settings) && metrics.contains($0.metric)
                && $0.p != nil
        }.sorted { (($0.p ?? 1), -abs($0.value)) < (($1.p ?? 1), -abs($1.value)) }
        let differences = tested.filter { $0.kind == .difference }.prefix(2)
        let responses = tested.filter { $0.kind == .response }.prefix(3 - differences.count)
        for moment in differences + responses {
            lines.append("\(label(moment.metric)): \(words(moment)).")
        }
        lines += markLines(stimulus, study: study, included: included.count)
        lines += study.answerSummary[stimulus] ?? []
        lines += study.normSummary[stimulus] ?? []
        if included.count < AnswerRelations.minimumParticipants {
            lines.append(
                "With \(included.count) viewer\(included.count == 1 ? "" : "s"), most tests cannot be made (a difference needs 4 per group, a relation to the answers \(AnswerRelations.minimumParticipants), a prediction \(AnswerPrediction.minimumParticipants)): read these figures as a description of these viewers."
            )
        }
        return SummaryView(name: stimulus, lines: lines.map(TextView.init))
    }

    /// Each mark's line: smile's change across the mark, paired within the viewers.
    ///
    /// From the `StudyFeatures.window` seconds before it to those after (`change.MARK`): the mean change, its 95 % interval, Student's one-sample t test against no
    /// change, p corrected over the stimulus's marks by Benjamini-Hochberg. Said to be a rise or a fall only when the
    /// test passes and the change reaches `--min-effect`.
    /// A mark's test: viewers' paired changes (after minus before), their mean with its 95 % t interval and the
    /// one-sample t test's two-sided p against no change (as `scipy.stats.ttest_1samp`; checked by
    /// `make statistics-check`); p nil below 2 viewers.
    package static func pairedChange(_ values: [Double]) -> (mean: Double?, low: Double?, high: Double?, p: Double?) {
        let interval = Descriptive.meanInterval(values)
        guard values.count >= 2, let mean = interval.mean else { return (interval.mean, nil, nil, nil) }
        let n = Double(values.count)
        let sd = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)).squareRoot()
        let p = sd > 0 ? StudentT.twoSidedP(mean / (sd / n.squareRoot()), degrees: n - 1) : (mean == 0 ? 1 : 0)
        return (mean, interval.low, interval.high, p)
    }

    static func markLines(_ stimulus: String, study: Study, included: Int) -> [String] {
        let settings = study.settings
        var names: [(name: String, time: Double)] = []
        for mark in settings.marks.filter({ $0.stimulus == stimulus }).sorted(by: { $0.time < $1.time })
        where !names.contains(where: { $0.name == mark.name }) {
            names.append((mark.name, mark.time))
        }
        let features = StudyFeatures.byParticipant(study, stimulus: stimulus)
        let window = number(StudyFeatures.window)
        let changes = names.map { mark in
            features.keys.sorted().compactMap { features[$0]?["expressions.smile change.\(mark.name)"] }
        }
        let tests = changes.map(pairedChange)
        let tested = tests.compactMap(\.p)
        let q = BenjaminiHochberg.adjust(tested)
        var next = 0
        var lines: [String] = []
        for (index, mark) in names.enumerated() {
            let head = "At the \(mark.name) (\(number(mark.time)) s)"
            guard let mean = tests[index].mean else {
                lines.append("\(head): smile not measured on both sides of it.")
                continue
            }
            guard tests[index].p != nil else {
                lines.append(
                    "\(head): smile changed by \(signed(mean)) from the \(window) s before to the \(window) s after (1 viewer: no test)."
                )
                continue
            }
            let corrected = q[next]
            next += 1
            let figures =
                "\(signed(mean))\(AnswerSummary.interval(tests[index].low, tests[index].high)) points from the \(window) s before to the \(window) s after (paired over \(changes[index].count) viewers, \(stated("q", corrected)))"
            if corrected < settings.alpha && abs(mean) >= settings.minimumEffect - 1e-9 {
                lines.append("\(head): smile \(mean > 0 ? "rose" : "fell") by \(figures).")
            } else if corrected < settings.alpha {
                lines.append(
                    "\(head): smile changed by \(figures), less than the \(number(settings.minimumEffect))-point minimum effect."
                )
            } else {
                lines.append("\(head): smile changed by \(figures): no change the test supports.")
            }
        }
        return lines
    }
}
