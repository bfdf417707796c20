import Foundation
import Mien
import MienStatistics
import Mustache

/// The study page's "Viewing and data quality" part of a stimulus: who was left out and why, how much of the
/// viewers' time they watched, and the attention curve.
extension StudyPage {
    struct ViewingView {
        var lines: [TextView]
        var hasChart: Bool
        var chart: String
        var hasRetention: Bool
        var retentionLines: [TextView]
        var retention: String
    }

    /// Stalls shorter than this (seconds) are counted in one line, not listed per viewer.
    static let shortStall = 0.25

    static func viewing(_ stimulus: String, study: Study, end: Double, groups: [String], chart: MustacheTemplate)
        -> ViewingView
    {
        let settings = study.settings
        let panel = study.participants.filter { $0.row.stimulus == stimulus }
        let included = panel.filter(\.included)
        var lines: [String] = []
        let reasons = Dictionary(grouping: panel.compactMap(\.exclusion).map(reason), by: { $0 })
            .map { ($0.key, $0.value.count) }.sorted { ($1.1, $0.0) < ($0.1, $1.0) }
        lines.append(
            reasons.isEmpty
                ? "Every one of the \(panel.count) viewers is included."
                : "\(panel.count - included.count) of \(panel.count) viewers left out: "
                    + reasons.map { "\($0.0) (\($0.1))" }.joined(separator: "; ")
                    + "; each row of the table at the end says by how much.")
        let shares = included.compactMap(\.onScreenShare)
        if shares.isEmpty {
            lines.append("Whether viewers looked at the screen was not measured (no gaze in the recordings).")
        } else {
            let median = Descriptive.quantile(shares, 0.5) ?? 0
            lines.append(
                "Included viewers watched a median of \(number(median * 100)) % of the stimulus (least "
                    + "\(number((shares.min() ?? 0) * 100)) %): on screen, eyes open, the page visible; a frame without the face "
                    + "counts as not watching.")
            lines.append(
                settings.allFrames
                    ? "The curves, tests and correlations read every frame of each face (--all-frames)."
                    : "The curves, tests and correlations read only the frames where the viewer watched (onScreen 50 or "
                        + "more, eyes not shut past a blink; frames where neither was measured stay); mien study "
                        + "--all-frames reads every frame.")
        }
        let points = study.attention.filter { $0.stimulus == stimulus }
        let drawn = points.contains { $0.mean != nil }
        // Stalls on the stimulus's time line: where each included viewer's stimulus waited for data, and how long.
        // Those under `shortStall` (a player starting, on nearly every viewer) are counted, not listed one by one.
        let spans = included.flatMap { member in (member.row.viewing?.stallSpans ?? []).map { (member, $0) } }
        let short = spans.filter { $0.1.upperBound - $0.1.lowerBound < shortStall }.count
        let stalls = spans.filter { $0.1.upperBound - $0.1.lowerBound >= shortStall }.map { member, span in
            (
                label:
                    "\(member.row.participant): stalled at \(number(span.lowerBound)) s for "
                    + "\(number(span.upperBound - span.lowerBound)) s",
                range: span
            )
        }
        if !stalls.isEmpty {
            lines.append(
                "Stalls (the stimulus waiting for data), marked under the attention chart: "
                    + stalls.map(\.label).joined(separator: "; ") + ".")
        }
        if short > 0 {
            lines.append(
                "\(short) stall\(short == 1 ? "" : "s") shorter than \(number(shortStall)) s (a player starting or catching up) not listed one by one."
            )
        }
        if drawn {
            lines.append(
                "Attention: the share of viewers watching in each bin (on screen for half its frames or more), with "
                    + "Wilson's 95 % interval where \(settings.minimumParticipants) or more are judged.")
        }
        let (retentionLines, retention) = retention(stimulus, study: study, end: end, groups: groups, chart: chart)
        return ViewingView(
            lines: lines.map(TextView.init), hasChart: drawn,
            chart: drawn
                ? StudyPage.chart(
                    label: StudyAttention.metric, end: end, range: 0...100, groups: groups, points: points,
                    value: \.mean, band: true, moments: [], bin: settings.bin, minimum: settings.minimumParticipants,
                    template: chart, marks: stalls, rules: settings.marks.filter { $0.stimulus == stimulus })
                : "", hasRetention: !retention.isEmpty, retentionLines: retentionLines.map(TextView.init),
            retention: retention)
    }

    /// The retention of a skippable stimulus: its chart (Kaplan-Meier per group, with its band), where viewers left
    /// fastest, and the log-rank test; nothing when nobody skipped.
    private static func retention(
        _ stimulus: String, study: Study, end: Double, groups: [String], chart: MustacheTemplate
    ) -> ([String], String) {
        let settings = study.settings
        let points = study.retention.filter { $0.stimulus == stimulus }
        guard !points.isEmpty else { return ([], "") }
        var lines = [
            "Retention: the share still watching (Kaplan-Meier; a viewer who watched to the end counts as still "
                + "watching, censored), with its 95 % band (Greenwood, log(-log)) where \(settings.minimumParticipants) "
                + "or more are still watching."
        ]
        let whole = points.filter { $0.group == StudyManifest.wholePanel }
        let fastest = StudyRetention.fastest(whole)
        if !fastest.isEmpty {
            lines.append(
                "Viewers leave fastest at "
                    + fastest.map {
                        "\(number($0.time))–\(number($0.time + settings.bin)) s (\($0.skipped) of \($0.atRisk) "
                            + "still watching skipped, \(number(100 * Double($0.skipped) / Double($0.atRisk))) %)"
                    }.joined(separator: "; ") + ".")
        }
        if let test = study.retentionTests.first(where: { $0.stimulus == stimulus }) {
            lines.append(
                "Groups \(test.groups.joined(separator: ", ")): \(test.p < settings.alpha ? "skip at different rates" : "no difference in when they skip shown"), "
                    + "log-rank chi-square \(number(test.statistic)) (\(test.degrees) df), \(stated("p", test.p)) (corrected over the study's retention tests)."
            )
        }
        let curve = points.map { point in
            StudyCurvePoint(
                stimulus: point.stimulus, group: point.group, metric: "viewers.retained", time: point.time,
                n: point.atRisk, mean: point.retained, low: point.low, high: point.high, episodeShare: nil)
        }
        return (
            lines,
            StudyPage.chart(
                label: "viewers.retained", end: end, range: 0...100, groups: groups, points: curve, value: \.mean,
                band: true, moments: [], bin: settings.bin, minimum: settings.minimumParticipants, template: chart,
                rules: settings.marks.filter { $0.stimulus == stimulus })
        )
    }

    /// An exclusion's rule, without its figures: "viewing rule hidden", "face measured too little".
    private static func reason(_ exclusion: String) -> String {
        if exclusion.hasPrefix("viewing rule ") {
            return String(exclusion.prefix { $0 != ":" })
        }
        if exclusion.hasPrefix("face measured in ") { return "face measured too little" }
        return exclusion
    }
}
