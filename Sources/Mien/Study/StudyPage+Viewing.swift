import Foundation
import Mustache

/// The study page's "Viewing and data quality" part of a stimulus: who was left out and why, how much of the
/// viewers' time they watched, and the attention curve.
extension StudyPage {
    struct ViewingView {
        var lines: [TextView]
        var hasChart: Bool
        var chart: String
    }

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
            let sorted = shares.sorted()
            let median =
                sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            lines.append(
                "Included viewers watched a median of \(number(median * 100)) % of the stimulus (least "
                    + "\(number(sorted[0] * 100)) %): on screen, eyes open, the page visible; a frame without the face "
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
        if drawn {
            lines.append(
                "Attention: the share of viewers watching in each bin (on screen for half its frames or more), with "
                    + "Wilson's 95 % interval where \(settings.minimumParticipants) or more are judged.")
        }
        return ViewingView(
            lines: lines.map(TextView.init), hasChart: drawn,
            chart: drawn
                ? StudyPage.chart(
                    label: StudyAttention.metric, end: end, range: 0...100, groups: groups, points: points,
                    value: \.mean, band: true, moments: [], bin: settings.bin, minimum: settings.minimumParticipants,
                    template: chart)
                : "")
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
