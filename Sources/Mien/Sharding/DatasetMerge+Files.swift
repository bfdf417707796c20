import Foundation

/// The merge's own files: the list of missing and failed inputs, and the summary.
extension DatasetMerge {
    /// Shards of the count that wrote no manifest.
    package var missingShards: [Int] {
        guard let count = manifests.values.first?.shardCount else { return [] }
        let present = Set(manifests.values.map(\.shard))
        return (0..<count).filter { !present.contains($0) }
    }

    func writeMissing(_ outcome: Outcome, to path: String) throws {
        func clean(_ text: String) -> String {
            text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
        }
        var text = "status\tinput\tshard\treason\n"
        for failure in outcome.failed {
            let shard = entries[failure.input].map { String($0.shard) } ?? ""
            text += "failed\t\(clean(failure.input))\t\(shard)\t\(clean(failure.error))\n"
        }
        for missing in outcome.missing {
            text +=
                "missing\t\(clean(missing.input))\t\(missing.shard.map(String.init) ?? "")\t\(clean(missing.reason))\n"
        }
        let file = try AtomicFile(path: path)
        try file.write(text)
        try file.commit()
    }

    /// The merged summary's layout.
    struct Summary: Encodable {
        var format = "mien-merged-dataset/1"
        var generator: String
        var folder: String
        var shardCount: Int
        var manifests: [String]
        var missingShards: [Int]
        var models: [String: String]
        var settings: [String: String]
        var inputs: Counts
        var frames: Int
        var rows: Int
        var failed: [Failure]
        var missing: [Missing]
        /// Per input analysed, the same numbers as its own `.summary.json`.
        var summaries: [InputSummary]

        struct Counts: Encodable {
            var total: Int
            var done: Int
            var failed: Int
            var missing: Int
        }
    }

    func writeSummary(
        _ outcome: Outcome, summaries: [InputSummary], generator: String, to path: String
    ) throws {
        let first = manifests.min(by: { $0.key < $1.key })?.value
        let summary = Summary(
            generator: generator, folder: folder, shardCount: first?.shardCount ?? 0,
            manifests: manifests.keys.sorted(), missingShards: outcome.missingShards, models: first?.models ?? [:],
            settings: first?.settings ?? [:],
            inputs: .init(
                total: inputs.count, done: outcome.done.count, failed: outcome.failed.count,
                missing: outcome.missing.count),
            frames: outcome.frames, rows: outcome.rows, failed: outcome.failed, missing: outcome.missing,
            summaries: summaries)
        let encoder = JSONLinesWriter.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let file = try AtomicFile(path: path)
        try file.write(try encoder.encode(summary))
        try file.write("\n")
        try file.commit()
    }
}
