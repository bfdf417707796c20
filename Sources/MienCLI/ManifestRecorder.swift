import Foundation
import Mien
import MienCore
import Synchronization

/// Keeps this task's shard manifest (`ShardManifest`) up to date in the output folder: written when the
/// task starts, rewritten atomically after each input, marked finished at the end.
///
/// A task killed at any point leaves a manifest that is true for what it says: inputs it reports done
/// have committed files.
final class ManifestRecorder: Sendable {
    private let manifest: Locked<ShardManifest>
    private let directory: String
    /// The entries of an earlier run of this shard in the same folder, by input (for `--resume`).
    let previous: [String: ShardManifest.Entry]
    /// Set when a rewrite of the manifest fails (the task then exits with status 1).
    private let writeFailed = Atomic<Bool>(false)

    /// Reads the earlier manifest of `shard`, if any, and writes the input list and the new manifest.
    /// - Throws: `.ioFailure` naming a file that cannot be written.
    init(
        output: String, shard: Shard, allInputs: [String], share: [String], names: OutputNames,
        settings: [String: String], outputs: [String]
    ) throws {
        directory = ShardManifest.folder(in: output)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let list = ShardManifest.inputList(of: allInputs)
        try Self.checkFolder(directory, shard: shard, list: list, output: output)
        let path = URL(fileURLWithPath: directory).appendingPathComponent(ShardManifest.fileName(for: shard)).path
        let earlier = FileManager.default.fileExists(atPath: path) ? try? ShardManifest.read(path) : nil
        previous = Dictionary(earlier?.inputs.map { ($0.input, $0) } ?? [], uniquingKeysWith: { $1 })
        try ShardManifest.writeInputList(allInputs, into: directory)
        var manifest = ShardManifest(
            generator: MienVersion.string, shard: shard, inputList: list,
            models: Dictionary(uniqueKeysWithValues: ModelDescriptor.all.map { ($0.fileName, $0.sha256) }),
            settings: settings, outputs: outputs,
            inputs: ShardManifest.canonicalList(share).map {
                ShardManifest.Entry(input: $0, outputName: names[$0], status: .pending)
            })
        try manifest.write(into: directory)
        self.manifest = Locked(manifest)
    }

    /// Refuses to add this task's outputs to a folder that holds another division of the inputs, or another
    /// list's outputs: `mien merge` could not combine them, and the mistake is cheapest to catch here.
    /// - Throws: `.invalidArgument` saying what differs and what to do.
    static func checkFolder(_ directory: String, shard: Shard, list: ShardManifest.InputList, output: String) throws {
        for name in ShardManifest.fileNames(in: directory) {
            guard let other = try? ShardManifest.read(URL(fileURLWithPath: directory).appendingPathComponent(name).path)
            else { continue }
            if other.shardCount != shard.count {
                throw MienError(
                    .invalidArgument,
                    "holds the manifests of \(other.shardCount) shards, and this task is shard \(shard): resubmitting one Slurm index? Give --shard-count \(other.shardCount) (MIEN_SHARDS=\(other.shardCount) with deploy/slurm/mien-array.sbatch)",
                    input: output)
            }
            if other.inputList.sha256 != list.sha256 {
                throw MienError(
                    .invalidArgument,
                    "holds the outputs of another list of inputs (\(other.inputList.count) inputs, \(name)); use a new output folder for a new list",
                    input: output)
            }
            return
        }
    }

    /// Records how `input` ended and rewrites the manifest.
    func record(_ input: String, _ outcome: InputOutcome) {
        let status: ShardManifest.Status
        switch outcome.status {
        case .done, .alreadyDone: status = .done
        case .notStarted: status = .pending
        case .interrupted: status = .interrupted
        case .failed, .modelProblem: status = .failed
        }
        let frames = outcome.frames
        let error = status == .done ? nil : outcome.error
        update {
            guard let index = $0.inputs.firstIndex(where: { $0.input == input }) else { return }
            $0.inputs[index].status = status
            $0.inputs[index].frames = frames
            $0.inputs[index].error = error
        }
    }

    /// Whether a rewrite of the manifest failed.
    var manifestWriteFailed: Bool { writeFailed.load(ordering: .relaxed) }

    /// Marks the share finished (every input ended) and rewrites the manifest.
    func finish() { update { $0.finished = true } }

    private func update(_ change: (inout ShardManifest) -> Void) {
        manifest.withLock { manifest in
            change(&manifest)
            do {
                try manifest.write(into: directory)
            } catch {
                // The outputs themselves are fine; the next update, or a rerun with --resume, writes it again.
                Diagnostics.report(error)
                writeFailed.store(true, ordering: .relaxed)
            }
        }
    }
}
