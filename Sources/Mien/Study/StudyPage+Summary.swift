import Foundation

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
        for metric in firstCharted {
            let points = curves.filter { $0.metric == metric && $0.group == StudyManifest.wholePanel }
            guard let top = points.filter({ $0.mean != nil }).max(by: { ($0.mean ?? 0) < ($1.mean ?? 0) }),
                let mean = curveMean(curves, metric, from: 0, to: .infinity)
            else { continue }
            lines.append(
                "\(label(metric)): highest \(number(top.mean ?? 0)) at \(number(top.time)) s, \(number(mean)) on average."
            )
        }
        let responses = study.moments.filter {
            $0.stimulus == stimulus && $0.kind != .peak && shown($0, settings) && firstCharted.contains($0.metric)
        }
        for moment in responses.sorted(by: { ($0.p ?? 1) < ($1.p ?? 1) }).prefix(3) {
            lines.append("\(label(moment.metric)): \(words(moment)).")
        }
        for mark in settings.marks where mark.stimulus == stimulus {
            let window = StudyFeatures.window
            guard let after = curveMean(curves, "expressions.smile", from: mark.time, to: mark.time + window) else {
                continue
            }
            let before = curveMean(curves, "expressions.smile", from: mark.time - window, to: mark.time)
            lines.append(
                "At the \(mark.name) (\(number(mark.time)) s): smile \(number(after)) in the \(number(window)) s after"
                    + (before.map { ", \(number($0)) in the \(number(window)) s before" } ?? "") + ".")
        }
        lines += study.answerSummary[stimulus] ?? []
        lines += study.normSummary[stimulus] ?? []
        if included.count < AnswerRelations.minimumParticipants {
            lines.append(
                "With \(included.count) viewer\(included.count == 1 ? "" : "s"), most tests cannot be made (a difference needs 4 per group, a relation to the answers \(AnswerRelations.minimumParticipants), a prediction \(AnswerPrediction.minimumParticipants)): read these figures as a description of these viewers."
            )
        }
        return SummaryView(name: stimulus, lines: lines.map(TextView.init))
    }
}
