import ArgumentParser
import Foundation
import Mien

/// `mien metrics`: the metric catalog, every metric with its group, unit, CSV columns and doc; what every
/// surface's group words mean.
struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "List every metric: its name in results, group, unit, CSV columns and what it measures.")

    @Flag(help: "Print the catalog as JSON (groups, the words every surface accepts, and every metric).")
    var json = false

    @Flag(help: "Print the catalog as the Markdown table docs/metrics.md holds (a test keeps the two equal).")
    var markdown = false

    func validate() throws {
        if json && markdown { throw ValidationError("--json and --markdown cannot be combined") }
    }

    /// What `--json` prints.
    private struct Catalog: Encodable {
        struct Group: Encodable {
            var name: String
            var summary: String
            var metrics: [String]
        }
        var words: [String]
        var groups: [Group]
        var metrics: [MetricDescriptor]
    }

    func run() throws {
        if json {
            let catalog = Catalog(
                words: MetricGroup.words,
                groups: MetricGroup.allCases.map { group in
                    Catalog.Group(
                        name: group.rawValue, summary: group.summary,
                        metrics: MetricCatalog.entries.filter { $0.group == group }.map(\.name))
                },
                metrics: MetricCatalog.entries)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try Console.output(encoder.encode(catalog) + Data("\n".utf8))
            return
        }
        if markdown {
            try Console.output(Data(Self.markdownTable().utf8))
            return
        }
        var lines: [String] = []
        for group in MetricGroup.allCases {
            lines.append("\(group.rawValue): \(group.summary)")
            for entry in MetricCatalog.entries where entry.group == group {
                let unit = entry.range.map { "\(Int($0.lowerBound))...\(Int($0.upperBound))" } ?? entry.unit.rawValue
                let name = entry.name.padding(toLength: 32, withPad: " ", startingAt: 0)
                lines.append("  \(name) \(unit.padding(toLength: 12, withPad: " ", startingAt: 0)) \(entry.doc)")
            }
        }
        lines.append(
            "Words for --metrics (and the service's metrics=, Python's metrics=): \(MetricGroup.words.joined(separator: ", "))."
        )
        try Console.output(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The catalog as a Markdown table: one row per metric, by group.
    static func markdownTable() -> String {
        var lines = [
            "| Metric (JSON) | Group | Unit | CSV columns | Summary | Episodes | FACS | What it measures |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for group in MetricGroup.allCases {
            for entry in MetricCatalog.entries where entry.group == group { lines.append(row(entry)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ entry: MetricDescriptor) -> String {
        let unit = entry.range.map { "\(Int($0.lowerBound))...\(Int($0.upperBound))" } ?? entry.unit.rawValue
        let cells = [
            "`\(entry.name)`", entry.group.rawValue, unit + (entry.onlyInStreams ? " (streams)" : ""),
            entry.columns.map { "`\($0.name)`" }.joined(separator: ", "),
            entry.summarized.isEmpty ? "" : "mean, max", entry.episodes ? "yes" : "",
            entry.actionUnit ?? "", entry.doc.replacingOccurrences(of: "|", with: "\\|"),
        ]
        return "| " + cells.joined(separator: " | ") + " |"
    }
}
