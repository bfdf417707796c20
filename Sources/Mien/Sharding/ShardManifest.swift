package import Foundation

/// What one array task of `mien analyze --shard` did with its share, written atomically into
/// `<output>/manifests/` when the task starts and again after every input, so a folder of shard outputs
/// says at any time which inputs are done, which failed (and why), and which are still to do.
///
/// `mien merge` reads these: it combines only manifests made with the same models and settings from the
/// same list of inputs, and names every input no manifest reports done.
package struct ShardManifest: Codable, Sendable, Equatable {
    /// Where one input of the share stands.
    package enum Status: String, Codable, Sendable {
        /// Not started yet (or the task was killed before or while analysing it).
        case pending
        /// Every frame analysed and the output files committed.
        case done
        /// Could not be read or analysed; `error` says why (the frames before the failure are kept).
        case failed
        /// Stopped by SIGTERM or Ctrl-C (a scheduler's time limit or preemption): the files hold the frames
        /// done, and `--resume` continues after the last of them.
        case interrupted
    }

    /// One input of the share.
    package struct Entry: Codable, Sendable, Equatable {
        /// The input's path as listed.
        package var input: String
        /// The output files' common name in the output folder (`<outputName>.jsonl`, `.csv`,
        /// `.summary.json`), from `OutputNames`.
        package var outputName: String
        /// How far the input got.
        package var status: Status
        /// Frames in the outputs (processed or not), once the input has ended.
        package var frames: Int?
        /// Why the input failed or what stopped it.
        package var error: String?

        /// An entry for `input`, whose files are named after `outputName`.
        package init(input: String, outputName: String, status: Status, frames: Int? = nil, error: String? = nil) {
            self.input = input
            self.outputName = outputName
            self.status = status
            self.frames = frames
            self.error = error
        }
    }

    /// The whole list of inputs the shards divide, stored once beside the manifests (`file`) so that
    /// `mien merge` can name inputs whose task never wrote a manifest.
    package struct InputList: Codable, Sendable, Equatable {
        /// SHA-256 (lower-case hex) of the sorted, de-duplicated paths joined by newlines: the same for any
        /// order the list was written in.
        package var sha256: String
        /// How many paths the list holds.
        package var count: Int
        /// The list's file name inside the manifests folder.
        package var file: String
    }

    /// This layout's name and version.
    package static let formatName = "mien-shard-manifest/1"
    /// The folder, inside the output folder, that holds the manifests and the input list.
    package static let folderName = "manifests"

    /// This layout's name and version (`formatName`), checked when the manifest is read.
    package var format = Self.formatName
    /// The program that wrote it, with its version (`mien 0.1.0 (OpenCV …, OpenVINO …)`).
    package var generator: String
    /// This task's share (from 0) and how many shares there are.
    package var shard: Int
    /// How many shares the inputs are divided into.
    package var shardCount: Int
    /// The whole list of inputs the shards divide.
    package var inputList: InputList
    /// Model file name to its SHA-256.
    package var models: [String: String]
    /// Every setting that changes the results (`DetectorOptions.settings` plus the command's own).
    package var settings: [String: String]
    /// The files written per input: `jsonl`, `csv`, `summary`.
    package var outputs: [String]
    /// Where the task ran.
    package var host: String
    /// The scheduler's identifiers of the task (`SLURM_JOB_ID`, `SLURM_ARRAY_JOB_ID`, …), when present.
    package var scheduler: [String: String]
    /// ISO 8601 times the task started and last updated this file.
    package var started: String
    /// ISO 8601 time the task last updated this file.
    package var updated: String
    /// Whether the task got to the end of its share (each input then done, failed or interrupted).
    package var finished: Bool
    /// The share's inputs, in path order.
    package var inputs: [Entry]

    /// A manifest for `shard`'s share of `inputList`, started at `started`.
    package init(
        generator: String, shard: Shard, inputList: InputList, models: [String: String], settings: [String: String],
        outputs: [String], inputs: [Entry], host: String = ProcessInfo.processInfo.hostName,
        scheduler: [String: String] = ShardManifest.schedulerIdentifiers(ProcessInfo.processInfo.environment),
        started: Date = Date()
    ) {
        self.generator = generator
        self.shard = shard.index
        shardCount = shard.count
        self.inputList = inputList
        self.models = models
        self.settings = settings
        self.outputs = outputs
        self.inputs = inputs
        self.host = host
        self.scheduler = scheduler
        self.started = Self.timestamp(started)
        updated = self.started
        finished = false
    }

    /// The manifest's file name for `shard`: `shard-0003-of-0008.json` (zero-padded, so they list in order).
    package static func fileName(for shard: Shard) -> String {
        func padded(_ number: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
        return "shard-\(padded(shard.index))-of-\(padded(shard.count)).json"
    }

    /// The manifests folder of output folder `folder`.
    package static func folder(in folder: String) -> String {
        URL(fileURLWithPath: folder).appendingPathComponent(folderName).path
    }

    /// The manifests' file names in the manifests folder `directory` (`shard-*.json`, in shard order; none
    /// when the folder is missing).
    package static func fileNames(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("shard-") && $0.hasSuffix(".json") }.sorted()
    }

    /// The environment variables that identify a scheduler's task, kept for tracing a manifest back to
    /// its job.
    package static func schedulerIdentifiers(_ environment: [String: String]) -> [String: String] {
        let names = [
            "SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_CLUSTER_NAME", "SLURM_RESTART_COUNT",
            "JOB_COMPLETION_INDEX", "HOSTNAME", "AWS_BATCH_JOB_ID", "AWS_BATCH_JOB_ARRAY_INDEX",
            "AWS_BATCH_JOB_ATTEMPT",
        ]
        return environment.filter { names.contains($0.key) }
    }

    /// The list reference for `inputs` (order and repeats do not matter).
    package static func inputList(of inputs: [String]) -> InputList {
        let digest = ModelStore.sha256(Data(canonicalList(inputs).joined(separator: "\n").utf8))
        return InputList(sha256: digest, count: Set(inputs).count, file: "inputs-\(digest.prefix(16)).txt")
    }

    /// The sorted, de-duplicated paths.
    package static func canonicalList(_ inputs: [String]) -> [String] { Set(inputs).sorted() }

    /// Writes the list file of `inputs` into `manifests` unless it is already there.
    ///
    /// Every task writes the same bytes under the same name, atomically, so concurrent tasks cannot leave a
    /// mixed file.
    /// - Throws: `.ioFailure` naming the file.
    package static func writeInputList(_ inputs: [String], into manifests: String) throws {
        let path = URL(fileURLWithPath: manifests).appendingPathComponent(inputList(of: inputs).file).path
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let file = try AtomicFile(path: path)
        try file.write(canonicalList(inputs).map { $0 + "\n" }.joined())
        try file.commit()
    }

    /// Reads the list file this manifest refers to, from `manifests`.
    /// - Throws: `.notFound` / `.corruptData` naming the file, or when its checksum is not the recorded one.
    package func readInputList(from manifests: String) throws -> [String] {
        let path = URL(fileURLWithPath: manifests).appendingPathComponent(inputList.file).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MienError(.notFound, "the list of inputs the manifests refer to is missing", input: path)
        }
        let paths = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard Self.inputList(of: paths).sha256 == inputList.sha256 else {
            throw MienError(
                .corruptData, "the list of inputs does not match its checksum in the manifests", input: path)
        }
        return paths
    }

    /// Writes the manifest atomically as `manifests/<fileName(for:)>`, stamping `updated`.
    /// - Throws: `.ioFailure` naming the file.
    package mutating func write(into manifests: String, now: Date = Date()) throws {
        updated = Self.timestamp(now)
        let path = URL(fileURLWithPath: manifests).appendingPathComponent(
            Self.fileName(for: try Shard(index: shard, count: shardCount))
        ).path
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let file = try AtomicFile(path: path)
        try file.write(try encoder.encode(self))
        try file.write("\n")
        try file.commit()
    }

    /// Reads a manifest.
    /// - Throws: `.unreadable` / `.corruptData` naming the file.
    package static func read(_ path: String) throws -> ShardManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MienError(.unreadable, "cannot read the shard manifest", input: path)
        }
        do {
            let manifest = try JSONDecoder().decode(ShardManifest.self, from: data)
            guard manifest.format == formatName else {
                throw MienError(
                    .corruptData, "is a '\(manifest.format)' manifest; this Mien reads '\(formatName)'", input: path)
            }
            return manifest
        } catch let error as MienError {
            throw error
        } catch {
            throw MienError(.corruptData, "is not a Mien shard manifest", input: path, cause: "\(error)")
        }
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
