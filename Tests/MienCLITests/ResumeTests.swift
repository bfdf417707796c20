import Foundation
import MienTesting
import Testing

/// `mien analyze --resume` after a SIGKILL or a SIGTERM at random points of a real talking-head video: the
/// resumed run's files are byte for byte the uninterrupted run's (one person stays one face, baselines, filters
/// and episodes continue), whether it goes on from the analysis snapshot or, without a usable one, analyses the
/// earlier frames again.
@Suite("mien analyze --resume", .serialized, .timeLimit(.minutes(10)))
struct ResumeTests {
    static let frames = 30
    static let outputs = ["jsonl", "csv", "events.csv", "summary.json"]

    /// What the rounds found: the differences, and the frames each resumed run continued after.
    struct Rounds: Sendable {
        var problems: [String] = []
        var resumedAfter: [Int] = []
        /// Rounds that went on from the snapshot.
        var fromSnapshot = 0
        /// Each resumed run's standard error.
        var messages: [String] = []
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func killedAtRandomPoints_resumedRunsEqualTheUninterruptedRun() async throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        let video = root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        // About 100 s of child processes and polling: on a thread of its own, so that the blocking waits do
        // not hold one of the two cooperative threads other suites' tests need.
        // A snapshot after every frame, so that each kill finds one wherever it lands (mid-write included).
        let rounds = try await Self.onOwnThread {
            try Self.rounds(video: video, count: 20, snapshotEvery: "0", signal: SIGKILL, seed: 48)
        }
        #expect(rounds.problems.isEmpty, "\(rounds.problems)")
        // Most rounds were really cut short (a kill can land after the last frame on a fast machine).
        #expect(rounds.resumedAfter.count >= 15, "runs resumed after frames \(rounds.resumedAfter)")
        #expect(rounds.fromSnapshot >= 15, "\(rounds.fromSnapshot) rounds went on from the snapshot")
    }

    /// SIGTERM (what Slurm and Kubernetes send before the kill): exit 143, the files completed, a last snapshot
    /// taken after the last frame written (with the default interval, none would be due within 30 frames).
    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func terminatedAtRandomPoints_resumeFromTheLastSnapshot() async throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        let video = root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        let rounds = try await Self.onOwnThread {
            try Self.rounds(video: video, count: 8, snapshotEvery: "60", signal: SIGTERM, seed: 60)
        }
        #expect(rounds.problems.isEmpty, "\(rounds.problems)")
        #expect(rounds.resumedAfter.count >= 6, "runs resumed after frames \(rounds.resumedAfter)")
        #expect(rounds.fromSnapshot == rounds.resumedAfter.count, "\(rounds.messages)")
    }

    /// The runs go at the lowest priority: the suites running beside this one time their own work.
    static let nice = "/usr/bin/nice"
    static var niceMien: [String] { ["-n", "19", mienPath()] }

    /// `count` rounds of: a run stopped by `signal` at a random frame, resumed, its files compared.
    static func rounds(video: String, count: Int, snapshotEvery: String, signal: Int32, seed: UInt64) throws -> Rounds {
        let name = (video as NSString).lastPathComponent
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = [
            "analyze", video, "--max-frames", String(frames), "--metrics", "all", "--snapshot-every", snapshotEvery,
        ]
        let whole = folder.appendingPathComponent("whole")
        var rounds = Rounds()
        let uninterrupted = try runProgram(nice, niceMien + arguments + ["--output", whole.path])
        guard uninterrupted.status == 0 else {
            rounds.problems.append("the uninterrupted run failed: \(uninterrupted.stderr)")
            return rounds
        }
        let expected = try outputs.map { try Data(contentsOf: whole.appendingPathComponent("\(name).\($0)")) }
        var generator = SeededGenerator(seed: seed)
        for round in 0..<count {
            let output = folder.appendingPathComponent("round-\(round)")
            let process = Process()
            // `nice` executes mien in its own place, so the PID is mien's.
            process.executableURL = URL(fileURLWithPath: nice)
            process.arguments = niceMien + arguments + ["--output", output.path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let point = Int.random(in: 1...(frames - 5), using: &generator)
            waitFor(point, framesOf: name, in: output, while: process)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            if signal == SIGTERM, process.isRunning || ![0, 143].contains(process.terminationStatus) {
                rounds.problems.append("round \(round): SIGTERM ended it with \(process.terminationStatus), not 143")
            }
            let resumed = try runProgram(nice, niceMien + arguments + ["--output", output.path, "--resume"])
            if resumed.status != 0 {
                rounds.problems.append("round \(round): exit \(resumed.status): \(resumed.stderr)")
            }
            rounds.messages.append(resumed.stderr)
            let line = resumed.stderr.split(separator: "\n").first { $0.contains("resuming after frame") }
            if let line, let frame = line.split(separator: " ").compactMap({ Int($0) }).first {
                rounds.resumedAfter.append(frame)
                if line.contains("from its snapshot") { rounds.fromSnapshot += 1 }
            }
            for (suffix, bytes) in zip(outputs, expected) {
                let file = output.appendingPathComponent("\(name).\(suffix)")
                if (try? Data(contentsOf: file)) != bytes {
                    rounds.problems.append("round \(round), killed after \(point) frames: \(suffix) differs")
                }
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.path).filter {
                $0.hasPrefix(".")
            }
            if !leftovers.isEmpty { rounds.problems.append("round \(round): leftovers \(leftovers)") }
            try? FileManager.default.removeItem(at: output)
        }
        return rounds
    }

    /// Waits until the killed-to-be run has finished `frames` frames, or has ended (a fast machine can finish
    /// the whole clip between two looks), at most 2 minutes.
    static func waitFor(_ frames: Int, framesOf name: String, in folder: URL, while process: Process) {
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            if let file = names.first(where: { $0.hasPrefix(".\(name).jsonl.partial-") }),
                let data = try? FileHandle(forReadingFrom: folder.appendingPathComponent(file)).readToEnd(),
                data.filter({ $0 == UInt8(ascii: "\n") }).count >= frames
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Runs `work` on a new thread and waits for it without holding a cooperative thread.
    static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
