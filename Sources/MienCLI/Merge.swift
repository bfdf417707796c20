import ArgumentParser
import Foundation
import Logging
import Mien

/// `mien merge DIR`: one data set from the output folder of `mien analyze --shard` tasks (`DatasetMerge`).
struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine the outputs of sharded runs (mien analyze --shard) into one data set.",
        discussion: """
            Reads DIR/manifests/ and each input's JSON Lines, and writes into --output (default DIR/merged): \
            results.csv (every row, with an input column), summary.json (counts, settings, models and each \
            input's summary), report.html (an index of inputs, then each input) and missing.tsv (inputs \
            missing or failed, with the reason). Exit status: 0 when every input is done, 1 when some are \
            missing or failed (the data set holds the others), 2 when the manifests cannot be combined \
            (different models, settings, input lists or shard counts; nothing is written).
            """)

    @Argument(help: "The output folder the shard tasks wrote into.")
    var folder: String

    @Option(help: "Folder for the merged data set (default: <folder>/merged).")
    var output: String?

    @Flag(help: "Skip the HTML report (for very large data sets).")
    var noReport = false

    func run() throws {
        let merge: DatasetMerge
        do {
            merge = try DatasetMerge(folder: folder)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.refused
        }
        let destination = output ?? URL(fileURLWithPath: folder).appendingPathComponent("merged").path
        let outcome: DatasetMerge.Outcome
        do {
            outcome = try merge.write(to: destination, report: !noReport, generator: MienVersion.string)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        for failure in outcome.failed { Diagnostics.logger.error("failed: \(failure.input): \(failure.error)") }
        for missing in outcome.missing { Diagnostics.logger.error("missing: \(missing.input): \(missing.reason)") }
        if !outcome.missingShards.isEmpty {
            let shards = outcome.missingShards.map(String.init).joined(separator: ", ")
            Diagnostics.logger.error("shards without a manifest: \(shards)")
        }
        let line =
            "\(destination): \(outcome.done.count) of \(merge.inputs.count) inputs, \(outcome.frames) frames, "
            + "\(outcome.rows) rows; \(outcome.failed.count) failed, \(outcome.missing.count) missing\n"
        try? Console.output(Data(line.utf8))
        if !outcome.isComplete { throw ExitStatus.inputFailed }
    }
}
