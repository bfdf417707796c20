import Foundation
import Mien
import MienTesting
import Testing

/// Shards for array jobs: every input in exactly one shard, stable under reordering, balanced by size; the
/// schedulers' environment variables.
@Suite("Shards")
struct ShardTests {
    /// 200 inputs of sizes spread over three orders of magnitude, from a fixed seed.
    static let inputs: [(path: String, bytes: Int64)] = {
        var generator = SeededGenerator(seed: 7)
        return (0..<200).map { ("videos/session-\($0).mp4", Int64(Double.random(in: 3...9, using: &generator).exp10)) }
    }()

    @Test(arguments: [1, 2, 3, 4, 7, 16])
    func everyInput_isInExactlyOneShard_whateverTheOrder(count: Int) {
        let shares = Shard.assign(Self.inputs, count: count)
        #expect(shares.count == count)
        let all = shares.flatMap { $0 }
        #expect(all.count == Self.inputs.count && Set(all) == Set(Self.inputs.map(\.path)))
        var generator = SeededGenerator(seed: 11)
        #expect(Shard.assign(Self.inputs.shuffled(using: &generator), count: count) == shares)
        #expect(Shard.assign(Self.inputs.reversed(), count: count) == shares)
    }

    @Test func shares_areBalancedByBytes() throws {
        let sizes = Dictionary(uniqueKeysWithValues: Self.inputs.map { ($0.path, $0.bytes) })
        for count in [2, 4, 8] {
            let loads = Shard.assign(Self.inputs, count: count).map { $0.reduce(Int64(0)) { $0 + (sizes[$1] ?? 0) } }
            let largestInput = Self.inputs.map(\.bytes).max() ?? 0
            // Greedy largest-first: no share exceeds the ideal by more than one input.
            let ideal = loads.reduce(0, +) / Int64(count)
            #expect((loads.max() ?? 0) <= ideal + largestInput, "\(count) shards: \(loads)")
            #expect((loads.max() ?? 0) - (loads.min() ?? 0) <= largestInput, "\(count) shards: \(loads)")
        }
    }

    @Test func duplicates_countOnce_andEmptySharesAreAllowed() {
        let shares = Shard.assign([("a.mp4", 5), ("a.mp4", 5), ("b.mp4", 1)], count: 3)
        #expect(shares.flatMap { $0 }.sorted() == ["a.mp4", "b.mp4"])
        #expect(shares.filter(\.isEmpty).count == 1)
    }

    @Test func parsing_KoverN() throws {
        #expect(try Shard("2/4") == Shard(index: 2, count: 4))
        for bad in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", ""] {
            #expect(throws: MienError.self, "\(bad)") { try Shard(bad) }
        }
    }

    @Test func environment_slurmKubernetesAndAWSBatch() throws {
        let slurm = ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try Shard.fromEnvironment(slurm) == Shard(index: 3, count: 4))
        // --array=1-8: IDs from 1.
        let fromOne = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8"]
        #expect(try Shard.fromEnvironment(fromOne) == Shard(index: 0, count: 8))
        // --array=0-14:2: 8 tasks, ID 6 is the fourth.
        let stepped = [
            "SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "14",
            "SLURM_ARRAY_TASK_STEP": "2",
        ]
        #expect(try Shard.fromEnvironment(stepped) == Shard(index: 3, count: 8))
        // With the count given, the task ID is the index: resubmitting index 2 alone (`--array=2`, where
        // Slurm describes a one-task array) still runs shard 2 of 4.
        let resubmitted = [
            "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2",
            "SLURM_ARRAY_TASK_COUNT": "1",
        ]
        #expect(try Shard.fromEnvironment(resubmitted) == Shard(index: 0, count: 1))
        #expect(try Shard.fromEnvironment(resubmitted, count: 4) == Shard(index: 2, count: 4))
        #expect(throws: MienError.self) { try Shard.fromEnvironment(slurm, count: 3) }
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: 5) == Shard(index: 2, count: 5))
        #expect(throws: MienError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"]) }
        #expect(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "0"], count: 2) == Shard(index: 0, count: 2))
        #expect(throws: MienError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "9"], count: 5) }
        #expect(throws: MienError.self) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"])
        }
        #expect(throws: MienError.self) { try Shard.fromEnvironment([:]) }
    }
}

extension Double {
    /// 10 to the power of `self`.
    fileprivate var exp10: Double { Foundation.pow(10, self) }
}
