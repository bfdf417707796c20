import Foundation
import MienTesting
import Testing

/// `mien analyze --resume` after a SIGKILL at random points of a real talking-head video: the resumed run's
/// files are byte for byte the uninterrupted run's (one person stays one face, baselines, filters and
/// episodes continue).
@Suite("mien analyze --resume", .serialized, .timeLimit(.minutes(5)))
struct ResumeTests {
    static let frames = 60
    static let outputs = ["jsonl", "csv", "events.csv", "summary.json"]

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func killedAtRandomPoints_resumedRunsEqualTheUninterruptedRun() throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        let video = root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        let name = (video as NSString).lastPathComponent
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["analyze", video, "--max-frames", String(Self.frames), "--metrics", "all"]
        let whole = folder.appendingPathComponent("whole")
        let uninterrupted = try runMien(arguments + ["--output", whole.path])
        #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")
        let expected = try Self.outputs.map { try Data(contentsOf: whole.appendingPathComponent("\(name).\($0)")) }

        var generator = SeededGenerator(seed: 48)
        var resumedAfter: [Int] = []
        for round in 0..<20 {
            let output = folder.appendingPathComponent("round-\(round)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: mienPath())
            process.arguments = arguments + ["--output", output.path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let point = Int.random(in: 1...(Self.frames - 5), using: &generator)
            _ = waitForFinishedFrames(of: name, in: output, atLeast: point)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let resumed = try runMien(arguments + ["--output", output.path, "--resume"])
            #expect(resumed.status == 0, "round \(round): \(resumed.stderr)")
            if let line = resumed.stderr.split(separator: "\n").first(where: { $0.contains("resuming after frame") }),
                let frame = line.split(separator: " ").last(where: { Int($0) != nil }).flatMap({ Int($0) })
            {
                resumedAfter.append(frame)
            }
            for (suffix, bytes) in zip(Self.outputs, expected) {
                let file = output.appendingPathComponent("\(name).\(suffix)")
                #expect(
                    try Data(contentsOf: file) == bytes,
                    "round \(round), killed after \(point) frames: \(suffix) differs")
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.path).filter {
                $0.hasPrefix(".")
            }
            #expect(leftovers.isEmpty, "round \(round): \(leftovers)")
            try? FileManager.default.removeItem(at: output)
        }
        // Most rounds were really cut short (a kill can land after the last frame on a fast machine).
        #expect(resumedAfter.count >= 15, "runs resumed after frames \(resumedAfter)")
    }
}
