import Foundation

/// `mien merge`: one data set from the output folder of a sharded run (`mien analyze --shard`): a CSV of
/// every input's rows with an `input` column, one summary JSON, one HTML report with an index of inputs,
/// and the list of inputs missing or failed.
///
/// It reads the shards' manifests, then each input's CSV rows and report part as its task wrote them (copied,
/// with the `input` column added); an input whose task wrote only JSON Lines is replayed from them. Either
/// way every file of the data set has the one result schema. It refuses
/// manifests made with different models, settings, input lists or shard counts, since rows made
/// differently must not be mixed silently.
package struct DatasetMerge: Sendable {
    /// An input that was analysed but did not end well, or whose files disagree with its manifest.
    package struct Failure: Sendable, Equatable, Encodable {
        /// The input's path as listed.
        package var input: String
        /// What went wrong, as the manifest or the check says.
        package var error: String
    }

    /// An input no manifest reports done or failed.
    package struct Missing: Sendable, Equatable, Encodable {
        /// The input's path as listed.
        package var input: String
        /// The shard it belongs to, when a manifest lists it.
        package var shard: Int?
        /// Why: no manifest lists it, or how far it got.
        package var reason: String
    }

    /// What the merge found.
    package struct Outcome: Sendable {
        /// Inputs whose every frame is in the data set, in path order.
        package var done: [String]
        /// Inputs analysed that did not end well, in path order.
        package var failed: [Failure]
        /// Inputs no manifest reports done or failed, in path order.
        package var missing: [Missing]
        /// Frames and CSV rows (one per face per processed frame) in the data set.
        package var frames: Int
        /// CSV rows in `results.csv` (one per face per processed frame).
        package var rows: Int
        /// Shards (0-based) that wrote no manifest.
        package var missingShards: [Int]

        /// Whether every input of the list is done.
        package var isComplete: Bool { failed.isEmpty && missing.isEmpty }
    }

    /// The merged data set's file names inside the output folder.
    package enum FileName {
        /// Every row of every input, with an `input` column.
        package static let csv = "results.csv"
        /// Every finished episode of every input (`EventTable`).
        package static let events = "events.csv"
        /// Counts, settings, models and each input's summary.
        package static let summary = "summary.json"
        /// An index of the inputs, then each input's report.
        package static let report = "report.html"
        /// Inputs missing or failed, with the reason.
        package static let missing = "missing.tsv"
    }

    /// The output folder of the sharded run.
    package let folder: String
    /// The manifests read, by file name.
    package let manifests: [String: ShardManifest]
    /// The whole list of inputs, in path order.
    package let inputs: [String]
    /// Per input, the entry of the manifest that got furthest with it.
    let entries: [String: (entry: ShardManifest.Entry, shard: Int)]

    /// Reads and checks the manifests of `folder`.
    /// - Throws: `.notFound` when there are none; `.invalidArgument` saying what differs when they cannot
    ///   be combined; the manifest's own error when one cannot be read.
    package init(folder: String) throws {
        self.folder = folder
        let directory = ShardManifest.folder(in: folder)
        let names = ShardManifest.fileNames(in: directory)
        guard !names.isEmpty else {
            throw MienError(
                .notFound, "holds no shard manifests (\(ShardManifest.folderName)/shard-*.json): analyse with --shard",
                input: folder)
        }
        var manifests: [String: ShardManifest] = [:]
        for name in names {
            manifests[name] = try ShardManifest.read(URL(fileURLWithPath: directory).appendingPathComponent(name).path)
        }
        try Self.checkCompatible(manifests)
        self.manifests = manifests
        guard let first = manifests.values.first else { throw MienError(.internalFailure, "no manifest") }
        inputs = try first.readInputList(from: directory)
        var entries: [String: (entry: ShardManifest.Entry, shard: Int, updated: String)] = [:]
        for manifest in manifests.values {
            for entry in manifest.inputs {
                if let old = entries[entry.input],
                    (Self.rank(old.entry.status), old.updated) >= (Self.rank(entry.status), manifest.updated)
                {
                    continue
                }
                entries[entry.input] = (entry, manifest.shard, manifest.updated)
            }
        }
        self.entries = entries.mapValues { ($0.entry, $0.shard) }
    }

    /// How far an input got, for choosing between two manifests that list it.
    private static func rank(_ status: ShardManifest.Status) -> Int {
        switch status {
        case .pending: 0
        case .interrupted: 1
        case .failed: 2
        case .done: 3
        }
    }

    /// Refuses manifests that must not be combined, naming the difference and two files that show it.
    static func checkCompatible(_ manifests: [String: ShardManifest]) throws {
        guard let (firstName, first) = manifests.min(by: { $0.key < $1.key }) else { return }
        for (name, manifest) in manifests.sorted(by: { $0.key < $1.key }) {
            func refuse(_ what: String) -> MienError {
                MienError(.invalidArgument, "cannot merge: \(what) (\(firstName) and \(name))")
            }
            if manifest.shardCount != first.shardCount {
                throw refuse("the shards divide the inputs \(first.shardCount) and \(manifest.shardCount) ways")
            }
            if manifest.inputList.sha256 != first.inputList.sha256 {
                throw refuse("the shards were given different lists of inputs")
            }
            for file in Set(first.models.keys).union(manifest.models.keys).sorted()
            where first.models[file] != manifest.models[file] {
                throw refuse(
                    "model \(file) differs: \(first.models[file] ?? "absent") against \(manifest.models[file] ?? "absent")"
                )
            }
            for key in Set(first.settings.keys).union(manifest.settings.keys).sorted()
            where first.settings[key] != manifest.settings[key] {
                throw refuse(
                    "setting \(key) differs: \(first.settings[key] ?? "absent") against \(manifest.settings[key] ?? "absent")"
                )
            }
            if !manifest.outputs.contains("jsonl") {
                throw MienError(
                    .invalidArgument,
                    "cannot merge: \(name)'s task wrote no JSON Lines (--format without jsonl); merge reads them")
            }
        }
    }

    /// Writes the data set into `output` (created if missing): `results.csv`, `events.csv`, `summary.json`,
    /// `report.html` (when `report`) and `missing.tsv`, each atomically.
    /// - Parameters:
    ///   - output: the folder written into.
    ///   - report: whether `report.html` is written.
    ///   - generator: the program doing the merge, recorded in the summary and the report.
    /// - Throws: `.ioFailure` naming an output file that cannot be written.
    package func write(to output: String, report: Bool, generator: String) throws -> Outcome {
        try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        func path(_ name: String) -> String { URL(fileURLWithPath: output).appendingPathComponent(name).path }
        let csv = try AtomicFile(path: path(FileName.csv))
        try csv.write("input," + ResultTable.headerLine + "\n")
        let rows = MergedRows(file: csv)
        let events = try MergedEvents(file: try AtomicFile(path: path(FileName.events)))
        var outcome = Outcome(done: [], failed: [], missing: [], frames: 0, rows: 0, missingShards: missingShards)
        var summaries: [InputSummary] = []
        var reports: [InputReport] = []
        // Timelines shrink as inputs grow, so a report of thousands of inputs stays a page a browser opens.
        let capacity = max(100, min(600, 30_000 / max(1, inputs.count)))
        for input in inputs {
            guard let (entry, shard) = entries[input] else {
                let reason =
                    outcome.missingShards.isEmpty
                    ? "no manifest lists it"
                    : "no manifest lists it (shards without a manifest: "
                        + outcome.missingShards.map(String.init).joined(separator: ", ") + ")"
                outcome.missing.append(Missing(input: input, shard: nil, reason: reason))
                continue
            }
            switch entry.status {
            case .pending:
                outcome.missing.append(Missing(input: input, shard: shard, reason: "not finished by its task"))
                continue
            case .interrupted:
                let reason = "interrupted after \(entry.frames ?? 0) frames: rerun its shard with --resume"
                outcome.missing.append(Missing(input: input, shard: shard, reason: reason))
                continue
            case .done, .failed:
                break
            }
            var part = InputReport(input: input, timelineCapacity: capacity)
            var frames = 0
            var problem: String? = entry.status == .failed ? entry.error ?? "failed" : nil
            let base = URL(fileURLWithPath: folder).appendingPathComponent(entry.outputName).path
            let rowsBefore = rows.count
            do {
                // The fast path reads what the task already made: its CSV rows and its report part. Without
                // them (a task run with --format jsonl), the JSON Lines are replayed.
                if let stored = Self.readPart(base + ".report.json"),
                    FileManager.default.fileExists(atPath: base + ".csv")
                {
                    try rows.copy(csvPath: base + ".csv", input: input)
                    part = stored.resampled(timelineCapacity: capacity)
                    frames = stored.summary.frames
                    if FileManager.default.fileExists(atPath: base + ".events.csv") {
                        try events.copy(eventsPath: base + ".events.csv")
                    }
                } else {
                    var replay = MergedEvents.Replay(input: input)
                    try rows.replay(jsonlPath: base + ".jsonl", input: input) { result in
                        frames += 1
                        part.add(result, frame: nil)
                        replay.add(result)
                    }
                    replay.finish()
                    try events.write(replay)
                }
                if entry.status == .done, let recorded = entry.frames, recorded != frames {
                    throw MienError(
                        .corruptData, "holds \(frames) frames; the manifest records \(recorded)", input: base + ".jsonl"
                    )
                }
            } catch let error as MienError where error.code == .ioFailure && error.input == csv.path {
                throw error
            } catch {
                // Unreadable or inconsistent files: the rows before the problem stay, like a failed input's.
                try rows.flush()
                if entry.status == .done || rows.count > rowsBefore {
                    problem = (error as? MienError)?.description ?? "\(error)"
                }
            }
            outcome.frames += frames
            if let problem {
                outcome.failed.append(Failure(input: input, error: problem))
                part.problem = problem
            } else {
                outcome.done.append(input)
            }
            summaries.append(part.summary)
            if report { reports.append(part) }
        }
        try rows.flush()
        outcome.rows = rows.count
        try csv.commit()
        try events.commit()
        try writeMissing(outcome, to: path(FileName.missing))
        try writeSummary(outcome, summaries: summaries, generator: generator, to: path(FileName.summary))
        if report {
            let page = try AtomicFile(path: path(FileName.report))
            try page.write(try HTMLReport.render(reports, generator: generator))
            try page.commit()
        }
        return outcome
    }

    /// A task's report part for one input, or nil when it is absent or unreadable (the input's JSON Lines
    /// are replayed instead).
    static func readPart(_ path: String) -> InputReport? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(InputReport.self, from: data)
    }
}
