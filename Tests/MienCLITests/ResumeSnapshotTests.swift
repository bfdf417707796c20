import Foundation
import MienTesting
import Testing

/// `mien analyze --resume` with a snapshot it must not trust: one of other settings is refused, a damaged one
/// ignored, each with a warning naming why, and the input analysed again from its first frame.
@Suite("mien analyze --resume: snapshots refused", .serialized, .timeLimit(.minutes(5)))
struct ResumeSnapshotTests {
    static let name = "WDA_AlexandriaOcasioCortez_000.mp4"
    static var arguments: [String] {
        ["analyze", "--max-frames", String(ResumeTests.frames), "--metrics", "all", "--snapshot-every", "0"]
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func snapshotOfOtherSettings_isRefused() async throws {
        let video = try Self.video()
        let stderr = try await ResumeTests.onOwnThread { () throws -> String in
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try Self.killedRun(video, output: folder)
            let resumed = try runProgram(
                mienPath(),
                Self.arguments + [video, "--output", folder.path, "--resume", "--shot-cut-threshold", "0.3"])
            return "exit \(resumed.status): \(resumed.stderr)"
        }
        #expect(stderr.hasPrefix("exit 0"), "\(stderr)")
        #expect(stderr.contains("taken with other settings (shotCutThreshold)"), "\(stderr)")
        #expect(stderr.contains("analysed again from the first frame"), "\(stderr)")
        #expect(!stderr.contains("from its snapshot"), "\(stderr)")
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func truncatedSnapshot_isIgnored_andTheRunEqualsAnUninterruptedOne() async throws {
        let video = try Self.video()
        let problems = try await ResumeTests.onOwnThread { () throws -> [String] in
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let whole = folder.appendingPathComponent("whole")
            let uninterrupted = try runProgram(mienPath(), Self.arguments + [video, "--output", whole.path])
            guard uninterrupted.status == 0 else { return ["the uninterrupted run failed: \(uninterrupted.stderr)"] }
            let output = folder.appendingPathComponent("killed")
            try Self.killedRun(video, output: output)
            let snapshot = output.appendingPathComponent(".\(Self.name).snapshot")
            let data = try Data(contentsOf: snapshot)
            try data.prefix(data.count / 2).write(to: snapshot)
            let resumed = try runProgram(mienPath(), Self.arguments + [video, "--output", output.path, "--resume"])
            var problems: [String] = []
            if resumed.status != 0 { problems.append("exit \(resumed.status): \(resumed.stderr)") }
            if !resumed.stderr.contains("its snapshot is damaged") || resumed.stderr.contains("from its snapshot") {
                problems.append("no warning that the snapshot is damaged, or it was used: \(resumed.stderr)")
            }
            for suffix in ResumeTests.outputs {
                let file = "\(Self.name).\(suffix)"
                if try Data(contentsOf: whole.appendingPathComponent(file))
                    != Data(contentsOf: output.appendingPathComponent(file))
                {
                    problems.append("\(suffix) differs")
                }
            }
            let hidden = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix(".") }
            if !hidden.isEmpty { problems.append("leftovers \(hidden)") }
            return problems
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    static func video() throws -> String {
        let root = try #require(SampleMedia.evaluationDirectory)
        return root.appendingPathComponent("videos_talking_heads/\(name)").path
    }

    /// A run killed (SIGKILL) once it has written 15 frames, leaving its snapshot behind.
    static func killedRun(_ video: String, output: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mienPath())
        process.arguments = arguments + [video, "--output", output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        ResumeTests.waitFor(15, framesOf: name, in: output, while: process)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let snapshot = output.appendingPathComponent(".\(name).snapshot").path
        try #require(FileManager.default.fileExists(atPath: snapshot), "the killed run left no snapshot")
    }
}
