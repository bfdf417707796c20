import ArgumentParser
import Mien

/// `--metrics` for the commands that measure faces (`analyze`, `frames`): which metric groups are on, by the
/// words `MetricGroup` defines for every surface.
struct MetricArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Metric groups, repeated or comma-separated: \(MetricGroup.words.joined(separator: ", ")) (default all).",
            discussion: MetricGroup.allCases.map { "\($0.rawValue): \($0.summary)." }.joined(separator: " ")
                + " `mien metrics` lists every metric."))
    var metrics: [String] = []

    /// The metrics of the groups given, every metric when none is.
    /// - Throws: `ValidationError` naming a group that does not exist.
    func selected() throws -> Set<Metric> {
        do {
            return try MetricGroup.metrics(named: ListOption.split(metrics))
        } catch let error as MienError {
            throw ValidationError("--metrics: \(error.message)")
        }
    }
}
