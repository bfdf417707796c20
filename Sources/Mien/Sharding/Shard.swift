import Foundation

/// One task's share of a list of inputs, for array jobs on a cluster (`mien analyze --shard K/N`): task
/// `index` of `count`, numbered from 0.
///
/// Every input goes to exactly one shard, by `Shard.assign`: balanced by size and independent of the list's
/// order, so a retried task redoes exactly its share, whatever order the list was written in.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// This task's share, 0..<count.
    package let index: Int
    /// How many shares the inputs are divided into (at least 1).
    package let count: Int

    /// Task `index` of `count`.
    /// - Throws: `.invalidArgument` unless `count >= 1` and `0 <= index < count`.
    package init(index: Int, count: Int) throws {
        guard count >= 1, (0..<count).contains(index) else {
            throw MienError(
                .invalidArgument, "a shard is K/N with N >= 1 and 0 <= K < N (counted from 0), got \(index)/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`, as `--shard` takes it.
    /// - Throws: `.invalidArgument` for anything else.
    package init(_ text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw MienError(.invalidArgument, "a shard is written K/N (for example 0/4), got '\(text)'")
        }
        try self.init(index: index, count: count)
    }

    /// `K/N`, as `--shard` takes it.
    package var description: String { "\(index)/\(count)" }

    /// The shard a scheduler's array task is, read from its environment.
    ///
    /// - Slurm job arrays, with `count` given: the array task ID is the shard index (`SLURM_ARRAY_TASK_ID`,
    ///   0..<count). This is the form that survives resubmitting one index (`sbatch --array=7`), where
    ///   Slurm's own count, minimum and maximum describe the one-task array.
    /// - Slurm job arrays without `count`: the array is the whole set of shards, `SLURM_ARRAY_TASK_ID`,
    ///   `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_STEP` (default 1) and `SLURM_ARRAY_TASK_COUNT` (or
    ///   `SLURM_ARRAY_TASK_MAX`) give index (ID − MIN) / STEP, so `--array=1-8` and `--array=0-14:2` work as
    ///   well as `--array=0-3`.
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX`; the count is the Job's `completions`, given as
    ///   `count` (`--shard-count`), since the pod's environment does not carry it.
    /// - AWS Batch array jobs: `AWS_BATCH_JOB_ARRAY_INDEX`, with the array size given as `count`.
    /// - Parameters:
    ///   - environment: the process's environment (`ProcessInfo.processInfo.environment`).
    ///   - count: the number of shards, required for Kubernetes and AWS Batch; for Slurm it makes
    ///     the task ID the index.
    /// - Throws: `.invalidArgument` naming what is missing or inconsistent.
    package static func fromEnvironment(_ environment: [String: String], count: Int? = nil) throws -> Shard {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text) else {
                throw MienError(.invalidArgument, "\(name) is '\(text)', not a whole number", input: "environment")
            }
            return value
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            if let count {
                guard (0..<count).contains(id) else {
                    throw MienError(
                        .invalidArgument,
                        "SLURM_ARRAY_TASK_ID \(id) is not a shard of \(count): with --shard-count, the array's task IDs are the shard indices 0...\(count - 1)",
                        input: "environment")
                }
                return try Shard(index: id, count: count)
            }
            let minimum = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            let slurmCount =
                try number("SLURM_ARRAY_TASK_COUNT")
                ?? number("SLURM_ARRAY_TASK_MAX").map { ($0 - minimum) / step + 1 }
            guard let slurmCount else {
                throw MienError(
                    .invalidArgument, "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor _MAX",
                    input: "environment")
            }
            guard (id - minimum) % step == 0 else {
                throw MienError(
                    .invalidArgument, "SLURM_ARRAY_TASK_ID \(id) is not on the array's step \(step) from \(minimum)",
                    input: "environment")
            }
            return try Shard(index: (id - minimum) / step, count: slurmCount)
        }
        for (name, scheduler) in [
            ("JOB_COMPLETION_INDEX", "a Kubernetes Indexed Job"),
            ("AWS_BATCH_JOB_ARRAY_INDEX", "an AWS Batch array job"),
        ] {
            guard let index = try number(name) else { continue }
            guard let count else {
                throw MienError(
                    .invalidArgument, "\(scheduler) does not say how many tasks there are: give --shard-count",
                    input: "environment")
            }
            return try Shard(index: index, count: count)
        }
        throw MienError(
            .invalidArgument,
            "--shard auto found no array task in the environment (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX)",
            input: "environment")
    }

    /// Divides `inputs` into `count` shares balanced by size.
    ///
    /// Largest first (ties by path), each input goes to the share with the fewest bytes so far (ties: the
    /// lowest index), the greedy rule whose largest share is within one input of the best possible. The
    /// result depends only on the set of paths and their sizes, not on the list's order; a path listed twice
    /// counts once.
    /// - Returns: `count` lists of paths, each in path order.
    package static func assign(_ inputs: [(path: String, bytes: Int64)], count: Int) -> [[String]] {
        var unique: [String: Int64] = [:]
        for input in inputs { unique[input.path] = max(0, input.bytes) }
        let ordered = unique.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var shares = [[String]](repeating: [], count: max(1, count))
        var loads = [Int64](repeating: 0, count: shares.count)
        for (path, bytes) in ordered {
            var lightest = 0
            for index in loads.indices where loads[index] < loads[lightest] { lightest = index }
            shares[lightest].append(path)
            loads[lightest] += bytes
        }
        return shares.map { $0.sorted() }
    }

    /// This shard's inputs of `inputs`, sized by `size` (bytes; 0 for what cannot be measured, such as a
    /// camera or a missing file, which then fails in its own shard with its own error).
    package func select(_ inputs: [String], size: (String) -> Int64 = Shard.fileSize) -> [String] {
        Self.assign(inputs.map { ($0, size($0)) }, count: count)[index]
    }

    /// A file's size in bytes, or the total of a folder's files (one level, as Mien reads folders); 0 when
    /// there is nothing to measure.
    package static func fileSize(_ path: String) -> Int64 {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { return 0 }
        func bytes(_ path: String) -> Int64 {
            ((try? manager.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        guard isDirectory.boolValue else { return bytes(path) }
        let names = (try? manager.contentsOfDirectory(atPath: path)) ?? []
        return names.reduce(0) { $0 + bytes(path + "/" + $1) }
    }
}
