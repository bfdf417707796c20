import ArgumentParser
import Mien

/// `--metrics` for the commands that measure faces (`analyze`, `frames`): which metric groups are on.
struct MetricArguments: ParsableArguments {
    /// Metric groups for `--metrics`.
    enum Group: String, CaseIterable {
        case all, expressions, emoji, emotions, appearance, gaze, none

        var metrics: Set<Metric> {
            switch self {
            case .all: .all
            case .expressions: .allExpressions
            case .emoji: .allEmoji
            case .emotions: .allEmotions
            case .appearance: .allAppearance
            case .gaze: [.gaze]
            case .none: []
            }
        }
    }

    @Option(
        help:
            "Metric groups, repeated or comma-separated: all (default), expressions, emoji, emotions, appearance, gaze, none."
    )
    var metrics: [String] = []

    /// The metrics of the groups given, every metric when none is.
    /// - Throws: `ValidationError` naming a group that does not exist.
    func selected() throws -> Set<Metric> {
        let groups = try ListOption.parse(metrics, option: "--metrics", as: Group.self)
        return (groups.isEmpty ? [.all] : groups).reduce(into: Set<Metric>()) { $0.formUnion($1.metrics) }
    }
}
