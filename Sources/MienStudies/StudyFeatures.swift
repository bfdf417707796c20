import Foundation
import Mien

/// Each included participant's response to a stimulus as a few numbers per headline metric (issue 80 item 2).
///
/// What the ad-testing literature relates to liking, intent and retention (McDuff et al. 2015: smiles and their peaks,
/// the response after the brand appears; Teixeira, Wedel and Pieters 2012: joy's rate of change and surprise), from
/// the same binned series the curves are drawn from (`ParticipantSeries.bins`, watched frames unless
/// `--all-frames`). `features.csv`; docs/studies.md, "Response features".
package enum StudyFeatures {
    /// The metrics features are computed for: the face's headline responses.
    package static let metrics = ["expressions.smile", "emotions.joy", "emotions.surprise", "valence", "engagement"]
    /// The window after (and before) a mark that `after.MARK` and `change.MARK` average, in seconds.
    package static let window = 2.0
    package static let header = "stimulus,participant,group,metric,feature,value"

    /// One feature of one participant's response.
    package struct Feature: Sendable, Equatable {
        package var metric: String
        /// `mean`, `peak`, `peakTime`, `area`, `lastQuarterSlope`, `episodes`, `after.MARK`, `change.MARK`.
        package var name: String
        package var value: Double
    }

    /// The features of `series` (bins of `bin` seconds), with `marks` of its stimulus; a feature that cannot be
    /// computed (no bin measured where it looks) is absent, never 0.
    ///
    /// - `mean`: the mean over measured bins; `peak`: the highest bin; `peakTime`: the first such bin's start (s);
    /// - `area`: the sum of measured bins' values times the bin (value-seconds);
    /// - `lastQuarterSlope`: the least-squares slope (value per second) over bins starting in the last quarter of
    ///   the stimulus, with 2 or more measured;
    /// - `episodes`: the metric's episodes that started within the stimulus (where an episode tracker follows it);
    /// - per mark name, at its first time t: `after.MARK`, the mean over bins starting within [t, t + window);
    ///   `change.MARK`, that minus the mean over [t − window, t).
    package static func features(of series: ParticipantSeries, bin: Double, marks: [StudyMark]) -> [Feature] {
        let end = Double(series.binCount) * bin
        var firsts: [(name: String, time: Double)] = []
        for mark in marks.sorted(by: { $0.time < $1.time }) where !firsts.contains(where: { $0.name == mark.name }) {
            firsts.append((mark.name, mark.time))
        }
        var features: [Feature] = []
        for metric in metrics {
            guard let values = series.bins[metric] else { continue }
            let measured = values.enumerated().compactMap { index, value in value.map { (Double(index) * bin, $0) } }
            func add(_ name: String, _ value: Double?) {
                if let value, value.isFinite { features.append(Feature(metric: metric, name: name, value: value)) }
            }
            func mean(from start: Double, to stop: Double) -> Double? {
                let inside = measured.filter { $0.0 >= start - 1e-9 && $0.0 < stop - 1e-9 }.map(\.1)
                return inside.isEmpty ? nil : inside.reduce(0, +) / Double(inside.count)
            }
            guard !measured.isEmpty else { continue }
            add("mean", measured.map(\.1).reduce(0, +) / Double(measured.count))
            if let top = measured.max(by: { $0.1 < $1.1 }), let first = measured.first(where: { $0.1 == top.1 }) {
                add("peak", first.1)
                add("peakTime", first.0)
            }
            add("area", measured.reduce(0) { $0 + $1.1 * bin })
            add("lastQuarterSlope", slope(measured.filter { $0.0 >= 0.75 * end - 1e-9 }.map { ($0.0 + bin / 2, $0.1) }))
            if let count = series.episodeCounts[metric] { add("episodes", Double(count)) }
            for mark in firsts {
                let after = mean(from: mark.time, to: mark.time + window)
                add("after.\(mark.name)", after)
                add(
                    "change.\(mark.name)",
                    after.flatMap { value in mean(from: mark.time - window, to: mark.time).map { value - $0 } })
            }
        }
        return features
    }

    /// The least-squares slope of `points` (x, y); nil below 2 points or when every x is the same.
    static func slope(_ points: [(Double, Double)]) -> Double? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let mx = points.map(\.0).reduce(0, +) / n
        let my = points.map(\.1).reduce(0, +) / n
        let sxx = points.reduce(0) { $0 + ($1.0 - mx) * ($1.0 - mx) }
        guard sxx > 0 else { return nil }
        return points.reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) } / sxx
    }

    /// Each included participant's features of `stimulus`, by participant, then by "METRIC FEATURE".
    package static func byParticipant(_ study: Study, stimulus: String) -> [String: [String: Double]] {
        let marks = study.settings.marks.filter { $0.stimulus == stimulus }
        var features: [String: [String: Double]] = [:]
        for series in study.participants where series.included && series.row.stimulus == stimulus {
            for feature in Self.features(of: series, bin: study.settings.bin, marks: marks) {
                features[series.row.participant, default: [:]]["\(feature.metric) \(feature.name)"] = feature.value
            }
        }
        return features
    }

    /// `features.csv`: a row per included participant, stimulus, metric and feature.
    package static func csv(_ study: Study) -> String {
        var lines = [header]
        for series in study.participants where series.included {
            let row = series.row
            let marks = study.settings.marks.filter { $0.stimulus == row.stimulus }
            for feature in features(of: series, bin: study.settings.bin, marks: marks) {
                lines.append(
                    [
                        row.stimulus, row.participant, row.group ?? "", feature.metric, feature.name,
                        ResultTable.number(feature.value, places: 4),
                    ].map(ResultTable.quoted).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
