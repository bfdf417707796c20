import Foundation
import Mien
import MienTesting
import Testing

/// `mien analyze --shard` and `mien merge`: shards of a list merge into the data set one process makes;
/// merge refuses mixed models and settings and names what is missing; a task stopped part way and run
/// again with `--resume` completes its input with every frame once.
@Suite("Shards on the command line", .serialized, .timeLimit(.minutes(10)))
struct ShardCommandTests {
    /// Reads a merged CSV's rows.
    static func rows(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func threeShards_mergeIntoTheSingleProcessDataSet_andMergeNamesWhatIsMissing() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two pictures with the same file name in different folders, a clip, and a corrupt picture.
        let other = folder.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let twin = other.appendingPathComponent("astronaut.jpg").path
        try FileManager.default.copyItem(atPath: SampleMedia.astronautPath, toPath: twin)
        let clip = folder.appendingPathComponent("clip.mp4").path
        // 2 s (12 fps): her first second settles, then her smile is an episode.
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 24, framesPerSecond: 12).write(to: clip)
        let corrupt = folder.appendingPathComponent("corrupt.jpg").path
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00]).write(to: URL(fileURLWithPath: corrupt))
        let inputs = [SampleMedia.astronautPath, twin, clip, corrupt]
        let list = folder.appendingPathComponent("list.txt").path
        try inputs.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)

        let shards = folder.appendingPathComponent("shards").path
        for index in 0..<3 {
            let task = try runMien(["analyze", "--inputs-from", list, "--shard", "\(index)/3", "--output", shards])
            #expect([0, 1].contains(task.status), "\(task.stderr)")
        }
        let single = folder.appendingPathComponent("single").path
        let whole = try runMien(["analyze", "--inputs-from", list, "--shard", "0/1", "--output", single])
        #expect(whole.status == 1, "the corrupt picture fails: \(whole.stderr)")

        // Each input in exactly one manifest.
        var listed: [String] = []
        for index in 0..<3 {
            let manifest = try ShardManifest.read("\(shards)/manifests/shard-000\(index)-of-0003.json")
            #expect(manifest.finished && manifest.shard == index && manifest.shardCount == 3)
            listed += manifest.inputs.map(\.input)
        }
        #expect(listed.sorted() == inputs.sorted())

        let merged = try runMien(["merge", shards])
        let reference = try runMien(["merge", single])
        #expect(merged.status == 1 && reference.status == 1, "the corrupt picture is named: \(merged.stderr)")
        #expect(merged.stderr.contains("failed: \(corrupt)"), "\(merged.stderr)")
        let rows = try Self.rows("\(shards)/merged/results.csv")
        #expect(rows == (try Self.rows("\(single)/merged/results.csv")), "the same rows as one process")
        #expect(rows.first?.hasPrefix("input,TimeStamp,frame,faceId") == true)
        #expect(rows.filter { $0.hasPrefix("\(clip),") }.count == 24, "one face in each of the clip's frames")
        // Her smile through the clip is one episode, the same in the shards' merge as in one process.
        let events = try Self.rows("\(shards)/merged/events.csv")
        #expect(events == (try Self.rows("\(single)/merged/events.csv")), "the same episodes as one process")
        // It starts once her first second has settled (her baseline learnt: no episode opens on a settling frame).
        let smilePrefix = "\(clip),0,expressions.smile,"
        let onset = events.first { $0.hasPrefix(smilePrefix) }.flatMap {
            Double($0.dropFirst(smilePrefix.count).prefix { $0 != "," })
        }
        #expect(onset.map { (0.9...1.5).contains($0) } == true, "\(events)")
        #expect(
            rows.filter { $0.hasPrefix("\(twin),") }.count == 1
                && rows.filter { $0.hasPrefix("\(SampleMedia.astronautPath),") }.count == 1)
        let missing = try String(contentsOfFile: "\(shards)/merged/missing.tsv", encoding: .utf8)
        #expect(missing.contains("failed\t\(corrupt)\t"), "\(missing)")
        let summary = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(shards)/merged/summary.json")))
                as? [String: Any])
        #expect((summary["inputs"] as? [String: Int]) == ["total": 4, "done": 3, "failed": 1, "missing": 0])
        let html = try String(contentsOfFile: "\(shards)/merged/report.html", encoding: .utf8)
        #expect(html.contains(clip) && html.contains(twin))
        // Thumbnails come from the tasks' report parts (merge never sees a frame): one per face.
        #expect(html.components(separatedBy: "data:image/jpeg;base64,").count - 1 == 3, "three faces, three thumbnails")

        // Without a task's report part, merge replays the input's JSON Lines instead: the same rows.
        let clipPart = try #require(
            try FileManager.default.contentsOfDirectory(atPath: shards).first {
                $0.hasPrefix("clip.mp4") && $0.hasSuffix(".report.json")
            })
        try FileManager.default.removeItem(atPath: "\(shards)/\(clipPart)")
        let replayed = try runMien(["merge", shards, "--output", folder.appendingPathComponent("m1").path])
        #expect(replayed.status == 1, "\(replayed.stderr)")
        #expect(try Self.rows(folder.appendingPathComponent("m1/results.csv").path) == rows)

        // A shard whose task never ran: merge names its inputs and exits 1.
        let shard2 = try ShardManifest.read("\(shards)/manifests/shard-0002-of-0003.json")
        try FileManager.default.removeItem(atPath: "\(shards)/manifests/shard-0002-of-0003.json")
        let incomplete = try runMien(["merge", shards, "--output", folder.appendingPathComponent("m2").path])
        #expect(incomplete.status == 1)
        for entry in shard2.inputs {
            #expect(incomplete.stderr.contains("missing: \(entry.input)"), "\(incomplete.stderr)")
        }
        #expect(incomplete.stderr.contains("shards without a manifest: 2"))

        // A manifest made with another model: merge refuses (exit 2) and writes nothing.
        var altered = try ShardManifest.read("\(shards)/manifests/shard-0001-of-0003.json")
        altered.models["fer_emotion.onnx"] = String(repeating: "0", count: 64)
        try altered.write(into: "\(shards)/manifests")
        let refused = try runMien(["merge", shards, "--output", folder.appendingPathComponent("m3").path])
        #expect(refused.status == 2 && refused.stderr.contains("model fer_emotion.onnx differs"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("m3").path))
    }

    @Test func mergeRefusesShardsAnalysedWithOtherSettings() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("second.jpg").path
        try FileManager.default.copyItem(atPath: SampleMedia.astronautPath, toPath: copy)
        let out = folder.appendingPathComponent("out").path
        let inputs = [SampleMedia.astronautPath, copy]
        #expect(
            try runMien(["analyze"] + inputs + ["--shard", "0/2", "--output", out, "--metrics", "emotions"]).status == 0
        )
        #expect(try runMien(["analyze"] + inputs + ["--shard", "1/2", "--output", out]).status == 0)
        let refused = try runMien(["merge", out])
        #expect(refused.status == 2 && refused.stderr.contains("setting metrics differs"), "\(refused.stderr)")
        let empty = try runMien(["merge", folder.path])
        #expect(empty.status == 2 && empty.stderr.contains("holds no shard manifests"), "\(empty.stderr)")
        #expect(try runMien(["analyze", copy, "--shard", "0/2"]).status == 64, "--shard needs --output")
        // A task of another division (a Slurm index resubmitted alone, without its count) or of another list
        // is refused before it analyses anything.
        let otherCount = try runMien(["analyze"] + inputs + ["--shard", "0/1", "--output", out])
        #expect(otherCount.status == 64 && otherCount.stderr.contains("holds the manifests of 2 shards"))
        let otherList = try runMien(["analyze", copy, "--shard", "0/2", "--output", out])
        #expect(otherList.status == 64 && otherList.stderr.contains("another list of inputs"), "\(otherList.stderr)")
    }

    /// A scheduler's time limit or preemption sends SIGTERM: the task completes the files of the frames done
    /// and records the input as interrupted; `--resume` then continues it after its last frame.
    @Test func taskStoppedBySIGTERM_resumesItsInput_withEveryFrameOnce() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("long.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 240).write(to: clip)
        let output = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mienPath())
        process.arguments = ["analyze", clip, "--shard", "0/1", "--output", output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for 40 finished frames in the temporary JSON Lines file, then SIGTERM.
        let started = waitForFinishedFrames(of: "long.mp4", in: output, atLeast: 40) != nil
        process.terminate()
        process.waitUntilExit()
        #expect(started && process.terminationStatus == 143, "SIGTERM: 128 + 15")
        let manifest = try ShardManifest.read(output.appendingPathComponent("manifests/shard-0000-of-0001.json").path)
        let entry = try #require(manifest.inputs.first)
        #expect(entry.status == .interrupted && !manifest.finished, "\(entry)")
        let frames = try #require(entry.frames)
        #expect(frames >= 40 && frames < 240)
        let early = try runMien(["merge", output.path])
        #expect(early.status == 1 && early.stderr.contains("missing: \(clip): interrupted after \(frames) frames"))

        let resumed = try runMien(["analyze", clip, "--shard", "0/1", "--output", output.path, "--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming after frame \(frames - 1)"), "\(resumed.stderr)")
        let merged = try runMien(["merge", output.path])
        #expect(merged.status == 0, "\(merged.stderr)")
        let frameColumn = try Self.rows(output.appendingPathComponent("merged/results.csv").path).dropFirst()
            .map { $0.split(separator: ",")[2] }.compactMap { Int($0) }
        #expect(frameColumn == Array(0..<240), "every frame exactly once, in order")
    }
}
