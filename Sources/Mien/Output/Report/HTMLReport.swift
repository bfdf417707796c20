package import Foundation
import Mustache

/// `mien analyze --report`: one self-contained HTML page (no network: inline SVG charts, inline CSS,
/// thumbnails as data URLs) with, per input and per face, timelines of emotions, valence and engagement,
/// a thumbnail, the appearance and the summary table.
///
/// The page's small inline script only checks itself (every thumbnail decoded, every chart drawn) and
/// records the outcome in `<html data-rendered="ok|...">`, which `scripts/check-report.sh` reads from
/// headless Chromium.
package enum HTMLReport {
    /// Line colours of the emotions (a colour-blind-safe palette, fixed so pages compare).
    static let colours: [String: String] = [
        "anger": "#d62728", "contempt": "#8c564b", "disgust": "#8a8a00", "fear": "#9467bd",
        "joy": "#2ca02c", "sadness": "#1f77b4", "surprise": "#ff7f0e", "valence": "#333333",
        "engagement": "#17becf", "gazeYaw": "#e377c2", "gazePitch": "#7f7f7f",
    ]

    /// Renders the page.
    /// - Parameters:
    ///   - inputs: the inputs, in the order shown.
    ///   - generator: who made the page (for example "mien 0.4.0"), printed in the header.
    ///   - date: when, printed in the header.
    package static func render(_ inputs: [InputReport], generator: String, date: Date = Date()) throws -> String {
        let template = try MustacheTemplate(string: ReportTemplate.page)
        let chart = try ChartSVG.parsed()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let page = PageView(
            generator: generator, generated: formatter.string(from: date),
            inputs: inputs.enumerated().map { InputView($1, anchor: "input-\($0)", chart: chart) },
            legend: InputReport.timelineMetrics.filter { $0 != "valence" && $0 != "engagement" }.map {
                LegendView(name: $0, colour: colours[$0] ?? "#000")
            }, severalInputs: inputs.count > 1)
        return template.render(page)
    }

    struct PageView {
        var generator: String
        var generated: String
        var inputs: [InputView]
        var legend: [LegendView]
        var severalInputs: Bool
    }

    package struct LegendView {
        var name: String
        var colour: String

        package init(name: String, colour: String) {
            (self.name, self.colour) = (name, colour)
        }
    }

    struct InputView {
        var name: String
        var anchor: String
        var frames: Int
        var processedFrames: Int
        var duration: String
        var faceCount: Int
        var problem: String
        var hasProblem: Bool
        var noFaces: Bool
        var faces: [FaceView]

        init(_ report: InputReport, anchor: String, chart: MustacheTemplate) {
            name = report.input
            self.anchor = anchor
            frames = report.summary.frames
            processedFrames = report.summary.processedFrames
            let range = report.timeRange ?? 0...0
            duration = LineChart.timeLabel(range.upperBound - range.lowerBound)
            problem = report.problem ?? ""
            hasProblem = report.problem != nil
            let summaries = Dictionary(uniqueKeysWithValues: report.summary.faces.map { ($0.faceId, $0) })
            faces = report.faces.keys.sorted().compactMap { id in
                guard let face = report.faces[id], let summary = summaries[id] else { return nil }
                return FaceView(face, summary: summary, timeRange: range, chart: chart)
            }
            faceCount = faces.count
            noFaces = faces.isEmpty
        }
    }

    struct FaceView {
        var faceId: Int
        var thumbnail: String
        var hasThumbnail: Bool
        var seen: String
        var frames: Int
        var appearance: String
        var charts: [FigureView]
        var hasCharts: Bool
        var emotionRows: [RowView]
        var expressionRows: [RowView]
        var emojiRows: [RowView]
        var dominant: [ShareView]
        var hasDominant: Bool

        init(
            _ face: InputReport.Face, summary: InputSummary.Face, timeRange: ClosedRange<Double>,
            chart: MustacheTemplate
        ) {
            faceId = face.faceId
            let encoded = face.encodedThumbnail ?? []
            hasThumbnail = !encoded.isEmpty
            thumbnail = "data:image/jpeg;base64," + Data(encoded).base64EncodedString()
            seen = "\(LineChart.timeLabel(summary.firstSeen))–\(LineChart.timeLabel(summary.lastSeen))"
            frames = summary.frames
            var parts: [String] = []
            if let gender = face.gender { parts.append("perceived gender \(gender.rawValue)") }
            if let age = face.age { parts.append("age \(age.rawValue)") }
            if let glasses = face.glasses { parts.append(glasses ? "glasses" : "no glasses") }
            appearance = parts.joined(separator: " · ")

            func series(_ names: [String]) -> [LineChart.Series] {
                names.compactMap { name in
                    face.timelines[name].map {
                        LineChart.Series(name: name, colour: colours[name] ?? "#000", samples: $0.samples)
                    }
                }
            }
            let emotionNames = InputReport.timelineMetrics.filter { $0 != "valence" && $0 != "engagement" }
            /// The face's episodes of metrics with a timeline, by the timeline's name (`emotions.joy` → `joy`).
            func episodes(of names: [String]) -> [LineChart.Episode] {
                face.episodes.compactMap { band in
                    let name = HTMLReport.timelineName(of: band.metric)
                    guard names.contains(name) else { return nil }
                    return LineChart.Episode(
                        metric: band.metric, onset: band.onset, offset: band.offset, colour: colours[name] ?? "#888")
                }
            }
            var made: [LineChart] = [
                ("Emotions (0–100)", emotionNames, 0.0...100.0),
                ("Valence (−100–100)", ["valence"], -100.0...100.0),
                ("Engagement (0–100)", ["engagement"], 0.0...100.0),
                (
                    "Gaze (degrees: yaw > 0 toward the person's left, pitch > 0 up)", ["gazeYaw", "gazePitch"],
                    -60.0...60.0
                ),
            ].compactMap { title, names, range in
                // A face seen in one frame (a picture) has nothing to plot over time: the table says it all.
                let lines = series(names).filter { $0.samples.count > 1 }
                guard !lines.isEmpty else { return nil }
                return LineChart(
                    title: title, series: lines, timeRange: timeRange, valueRange: range,
                    episodes: episodes(of: names))
            }
            // Every metric with an episode gets a lane, blinks first, then by how often it happened.
            let counts = Dictionary(face.episodes.map { ($0.metric, 1) }, uniquingKeysWith: +)
            let order = counts.keys.sorted { a, b in
                let (blinkA, blinkB) = (HTMLReport.isBlink(a), HTMLReport.isBlink(b))
                if blinkA != blinkB { return blinkA }
                return counts[a] ?? 0 != counts[b] ?? 0 ? counts[a] ?? 0 > counts[b] ?? 0 : a < b
            }
            if !order.isEmpty && timeRange.upperBound > timeRange.lowerBound {
                let lanes = face.episodes.map { band in
                    let name = HTMLReport.timelineName(of: band.metric)
                    return LineChart.Episode(
                        metric: band.metric, onset: band.onset, offset: band.offset,
                        colour: colours[name] ?? (HTMLReport.isBlink(band.metric) ? "#444" : "#4477aa"))
                }
                made.append(
                    LineChart(
                        lanes: "Episodes (when each was on; blinks and winks first)", episodes: lanes, order: order,
                        timeRange: timeRange))
            }
            charts = made.map { FigureView(title: $0.title, svg: ChartSVG.render($0, with: chart)) }
            hasCharts = !charts.isEmpty
            func rows(_ names: [String]) -> [RowView] {
                names.compactMap { name in summary.metrics[name].map { RowView(name: name, statistic: $0) } }
            }
            func columns(of group: MetricGroup) -> [String] {
                MetricCatalog.entries.filter { $0.group == group }.flatMap(\.summarized)
            }
            emotionRows = rows(columns(of: .emotions))
            expressionRows = rows(columns(of: .expressions))
            emojiRows = rows(columns(of: .emoji))
            dominant = summary.dominantEmotionShare.sorted { $0.value > $1.value }.filter { $0.value > 0 }.map {
                ShareView(
                    name: $0.key, percent: String(Int(saturating: $0.value * 100)), width: $0.value * 100,
                    colour: colours[$0.key] ?? "#bbbbbb")
            }
            hasDominant = !dominant.isEmpty
        }
    }

    /// An episode metric's timeline and colour name: `emotions.joy` → `joy`.
    static func timelineName(of metric: String) -> String {
        metric.split(separator: ".").last.map(String.init) ?? metric
    }

    static func isBlink(_ metric: String) -> Bool { ["blink", "winkLeft", "winkRight"].contains(metric) }

    /// A chart and its caption, drawn by `ChartSVG`.
    struct FigureView {
        var title: String
        var svg: String
    }

    struct RowView {
        var name: String
        var mean: String
        var max: String
        var frames: Int
        /// Width of the mean's bar, percent of the cell (valence: of half the cell, from the middle).
        var bar: Double
        var barLeft: Double

        init(name: String, statistic: InputSummary.Statistic) {
            self.name = name
            mean = String(format: "%.1f", statistic.mean)
            max = String(format: "%.1f", statistic.max)
            frames = statistic.frames
            if name == "valence" {
                bar = Swift.min(abs(statistic.mean), 100) / 2
                barLeft = statistic.mean < 0 ? 50 - bar : 50
            } else {
                bar = Swift.min(Swift.max(statistic.mean, 0), 100)
                barLeft = 0
            }
        }
    }

    struct ShareView {
        var name: String
        var percent: String
        var width: Double
        var colour: String
    }
}
