import Foundation
import Mien
import Testing

/// Shard manifests and the checks `mien merge` makes before combining them; output names that never
/// collide.
@Suite("Shard manifests")
struct ShardManifestTests {
    static func manifest(
        shard: Int = 0, count: Int = 2, inputs: [String] = ["/data/a.mp4", "/data/b.mp4", "/other/a.mp4"],
        models: [String: String] = ["mesh.onnx": "aa"], settings: [String: String] = ["metrics": "joy"]
    ) throws -> ShardManifest {
        let names = OutputNames(inputs)
        let shardValue = try Shard(index: shard, count: count)
        return ShardManifest(
            generator: "mien test", shard: shardValue, inputList: ShardManifest.inputList(of: inputs), models: models,
            settings: settings, outputs: ["csv", "jsonl", "summary"],
            inputs: shardValue.select(inputs, size: { _ in 1 }).map {
                ShardManifest.Entry(input: $0, outputName: names[$0], status: .pending)
            }, host: "node1", scheduler: [:])
    }

    @Test func outputNames_keepPlainNames_andSeparateInputsThatShareOne() {
        let names = OutputNames(["/data/a.mp4", "/other/a.mp4", "/data/b.mp4", "camera:0", "/data/a.mp4"])
        #expect(names["/data/b.mp4"] == "b.mp4")
        #expect(names["camera:0"] == "camera-0")
        let first = names["/data/a.mp4"]
        let second = names["/other/a.mp4"]
        #expect(first != second && first.hasPrefix("a.mp4-") && second.hasPrefix("a.mp4-"))
        #expect(first.count == "a.mp4-".count + 8)
        // The same whatever the order, so every shard of a list agrees.
        let reordered = OutputNames(["/data/b.mp4", "/other/a.mp4", "/data/a.mp4"])
        #expect(reordered["/data/a.mp4"] == first && reordered["/other/a.mp4"] == second)
    }

    @Test func inputList_isTheSameInAnyOrder_andDiffersForAnotherList() {
        let list = ShardManifest.inputList(of: ["b", "a", "c", "a"])
        #expect(list == ShardManifest.inputList(of: ["c", "b", "a"]))
        #expect(list.count == 3 && list.sha256.count == 64 && list.file.hasPrefix("inputs-"))
        #expect(list.sha256 != ShardManifest.inputList(of: ["a", "b"]).sha256)
    }

    @Test func manifest_roundTripsThroughItsFile_andTheListFileIsChecked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-manifest-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var manifest = try Self.manifest(shard: 1, count: 2)
        manifest.inputs[0].status = .failed
        manifest.inputs[0].error = "truncated"
        try manifest.write(into: folder)
        let path = folder + "/shard-0001-of-0002.json"
        #expect(try ShardManifest.read(path) == manifest)
        let inputs = ["/data/a.mp4", "/data/b.mp4", "/other/a.mp4"]
        try ShardManifest.writeInputList(inputs.reversed(), into: folder)
        #expect(try manifest.readInputList(from: folder) == inputs)
        // An edited list no longer matches its checksum.
        try "/data/a.mp4\n".write(toFile: folder + "/" + manifest.inputList.file, atomically: true, encoding: .utf8)
        #expect(throws: MienError.self) { try manifest.readInputList(from: folder) }
        try "{\"format\": \"something-else\"}".write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(throwsMienError { _ = try ShardManifest.read(path) })
        #expect(error.code == .corruptData && error.input == path)
    }

    @Test func schedulerIdentifiers_keepOnlyTheTasksIDs() {
        let kept = ShardManifest.schedulerIdentifiers([
            "SLURM_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": "3", "HOME": "/root", "JOB_COMPLETION_INDEX": "2",
        ])
        #expect(kept == ["SLURM_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": "3", "JOB_COMPLETION_INDEX": "2"])
    }

    /// Writes manifests into a scratch output folder and returns what `DatasetMerge` makes of it.
    static func merge(_ manifests: [ShardManifest]) throws -> Result<DatasetMerge, MienError> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-merge-\(UUID())").path
        let directory = ShardManifest.folder(in: folder)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for var manifest in manifests { try manifest.write(into: directory) }
        try ShardManifest.writeInputList(["/data/a.mp4", "/data/b.mp4", "/other/a.mp4"], into: directory)
        do {
            return .success(try DatasetMerge(folder: folder))
        } catch let error as MienError {
            return .failure(error)
        }
    }

    @Test func merge_refusesOtherModelsSettingsListsAndShardCounts_namingTheDifference() throws {
        let first = try Self.manifest(shard: 0)
        let cases: [(ShardManifest, String)] = [
            (try Self.manifest(shard: 1, models: ["mesh.onnx": "bb"]), "model mesh.onnx differs: aa against bb"),
            (try Self.manifest(shard: 1, settings: ["metrics": "anger"]), "setting metrics differs: joy against anger"),
            (try Self.manifest(shard: 1, inputs: ["/data/a.mp4"]), "different lists of inputs"),
            (try Self.manifest(shard: 1, count: 3), "divide the inputs 2 and 3 ways"),
        ]
        for (other, message) in cases {
            guard case .failure(let error) = try Self.merge([first, other]) else {
                Issue.record("merged manifests that differ: \(message)")
                continue
            }
            #expect(error.code == .invalidArgument && error.message.contains(message), "\(error)")
        }
        guard case .success(let merge) = try Self.merge([first, try Self.manifest(shard: 1)]) else {
            Issue.record("refused two matching manifests")
            return
        }
        #expect(merge.inputs == ["/data/a.mp4", "/data/b.mp4", "/other/a.mp4"] && merge.missingShards.isEmpty)
    }

    @Test func merge_namesTheShardsWithoutAManifest() throws {
        guard case .success(let merge) = try Self.merge([try Self.manifest(shard: 1, count: 4)]) else {
            Issue.record("refused one manifest")
            return
        }
        #expect(merge.missingShards == [0, 2, 3])
    }
}

/// The `MienError` `body` throws, if it throws one.
private func throwsMienError(_ body: () throws -> Void) -> MienError? {
    do {
        try body()
        return nil
    } catch {
        return error as? MienError
    }
}
