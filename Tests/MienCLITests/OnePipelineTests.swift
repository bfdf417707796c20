import Foundation
import Mien
import MienTesting
import Testing

/// The command line's two front ends print one schema, and its list options and input lists behave as
/// users expect.
@Suite("One result schema, CLI habits", .timeLimit(.minutes(10)))
struct OnePipelineTests {
    let schema: JSONSchemaValidator

    init() throws {
        schema = try JSONSchemaValidator(
            path: SampleMedia.repositoryRoot.appendingPathComponent("Schema/detector-result.schema.json").path)
    }

    /// Every line of `result` is valid against the published schema.
    func expectValid(_ result: CommandResult, _ what: String) {
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty, "\(what): no output")
        for line in lines {
            let failures = schema.failures(ofJSON: line)
            #expect(failures.isEmpty, "\(what): \(failures.prefix(5))")
        }
    }

    @Test func detectAndAnalyze_printTheSameJSON_validAgainstTheSchema() throws {
        let detect = try runMien([
            "detect", "--expressions", "--emoji", "--emotions", "--appearance", "--gaze", SampleMedia.astronautPath,
        ])
        let analyze = try runMien(["analyze", SampleMedia.astronautPath])
        #expect(detect.status == 0 && analyze.status == 0, "\(detect.stderr) \(analyze.stderr)")
        #expect(!detect.stdout.isEmpty && detect.stdout == analyze.stdout)
        expectValid(detect, "detect")
        expectValid(try runMien(["detect", SampleMedia.astronautPath]), "detect, no metric")
        expectValid(
            try runMien(["detect", "--landmarks", "--expressions", "--blendshapes", SampleMedia.astronautPath]),
            "landmarks")
        expectValid(try runMien(["detect", "--detector-only", SampleMedia.astronautPath]), "detector only")
    }

    @Test func theSchema_refusesLinesThatDriftFromIt() throws {
        let line = try #require(
            try runMien(["analyze", SampleMedia.astronautPath]).stdout.split(separator: "\n").first)
        #expect(schema.failures(ofJSON: String(line)).isEmpty)
        let valid = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        func mutated(_ change: (inout [String: Any], inout [String: Any]) -> Void) -> [String: Any] {
            var copy = valid
            var face = (copy["faces"] as? [String: Any])?["0"] as? [String: Any] ?? [:]
            change(&copy, &face)
            copy["faces"] = ["0": face]
            return copy
        }
        let broken: [(String, [String: Any])] = [
            ("no frameIndex", mutated { line, _ in line["frameIndex"] = nil }),
            ("an unknown key", mutated { line, _ in line["bounds"] = 1 }),
            ("a score over 100", mutated { _, face in face["engagement"] = 101 }),
            ("an unknown gender", mutated { _, face in face["gender"] = "robot" }),
            ("a boolean for a number", mutated { _, face in face["confidence"] = true }),
            ("33 points", mutated { _, face in face["facePoints"] = Array(repeating: ["x": 1, "y": 1], count: 33) }),
        ]
        for (what, value) in broken { #expect(!schema.failures(of: value).isEmpty, "\(what) passed") }
    }

    @Test func aVideo_withSkippedFrames_isValidAgainstTheSchema_everyFrameOnce() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 12, framesPerSecond: 12).write(to: video)
        let result = try runMien(["analyze", "--rate", "4", video])
        #expect(result.status == 0, "\(result.stderr)")
        expectValid(result, "video at 4 fps of 12")
        let lines = result.jsonLines
        #expect(lines.compactMap { $0["frameIndex"] as? Int } == Array(0..<12))
        // 12 fps analysed at most 4 times a second: every third frame, the others unprocessed (no faces).
        #expect(lines.map { $0["faces"] != nil } == (0..<12).map { $0 % 3 == 0 })
        #expect(lines.allSatisfy { $0["input"] as? String == video })
    }

    @Test func listOptions_takeRepeatsAndCommas_andNeverSwallowTheInputs() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("second.jpg").path
        try FileManager.default.copyItem(atPath: SampleMedia.astronautPath, toPath: copy)
        let out = folder.appendingPathComponent("out").path
        // Before: `--format` took every value up to the next option, the inputs included (a usage error).
        let result = try runMien(["analyze", "--output", out, "--format", "jsonl", SampleMedia.astronautPath, copy])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(
            written == [
                "astronaut.jpg.jsonl", "astronaut.jpg.summary.json", "second.jpg.jsonl", "second.jpg.summary.json",
            ])
        let commas = try runMien(["analyze", "--metrics", "expressions,appearance", SampleMedia.astronautPath])
        let repeated = try runMien([
            "analyze", "--metrics", "expressions", "--metrics", "appearance", SampleMedia.astronautPath,
        ])
        #expect(commas.status == 0 && commas.stdout == repeated.stdout)
        let face = try #require(commas.jsonLines.first.map(facesOf)?.first)
        #expect(face["expressions"] != nil && face["gender"] != nil && face["emotions"] == nil)
        let unknown = try runMien(["analyze", "--metrics", "expressions,moods", SampleMedia.astronautPath])
        #expect(unknown.status == 64 && unknown.stderr.contains("moods"), "\(unknown.stderr)")
    }

    @Test func inputsFrom_readsOnePathPerLine_fromAFileOrStandardInput() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("list.txt").path
        try "\(SampleMedia.astronautPath)\n\n\(SampleMedia.astronautPath)\n".write(
            toFile: list, atomically: true, encoding: .utf8)
        let fromFile = try runMien(["detect", "--inputs-from", list])
        #expect(fromFile.status == 0 && fromFile.jsonLines.count == 2, "\(fromFile.stderr)")
        let fromStandardInput = try runProgram(
            "/bin/sh", ["-c", "echo '\(SampleMedia.astronautPath)' | '\(mienPath())' detect --inputs-from -"])
        #expect(fromStandardInput.status == 0 && fromStandardInput.jsonLines.count == 1, "\(fromStandardInput.stderr)")
        let missing = try runMien(["detect", "--inputs-from", folder.appendingPathComponent("none.txt").path])
        #expect(missing.status == 64)
    }

    @Test func outOfRangeOptions_areUsageErrors_beforeAnyInputIsRead() throws {
        // A missing input would be exit 1 if it were read; 64 means the options were refused first.
        for arguments in [
            ["analyze", "--max-faces", "65"], ["analyze", "--rate", "0"], ["analyze", "--rate", "nan"],
            ["analyze", "--min-confidence", "1.5"], ["analyze", "--max-frames", "0"], ["detect", "--interval", "-1"],
            ["analyze", "--format", "xml"],
        ] {
            let result = try runMien(arguments + ["/no/such/input.jpg"])
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(!result.stderr.contains("/no/such/input.jpg"), "\(arguments) read the input")
        }
    }
}
