import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev bench-resume` (`make bench-resume`): what `mien analyze --resume` saves on a long video.
///
/// The talking head played forward and back (no cut, one face throughout) to `--minutes` of video; per round,
/// alternating: the uninterrupted run; a run killed (SIGKILL) at `--kill-at` of its frames and resumed; a run
/// killed twice (at 1/3 and 2/3) and resumed twice. Each resumed run's JSON Lines must equal the uninterrupted
/// run's. Prints each time, the ratios (resume / uninterrupted, the three runs of the twice-killed one /
/// uninterrupted), then a JSON line.
struct ResumeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-resume",
        abstract: "Time mien analyze --resume after a kill on a long talking-head clip (make bench-resume).")

    @Option(help: "The mien executable (default: the one beside MienDev).") var mien: String?
    @Option(help: "Minutes of video.") var minutes = 2.0
    @Option(help: "Fraction of the frames written before the kill.") var killAt = 0.8
    @Option(help: "Rounds (each: uninterrupted, killed once, killed twice).") var rounds = 2
    @Option(help: "Metric groups for mien analyze --metrics.") var metrics = "all"
    @Option(help: "Folder for the clip and the outputs.") var workDirectory = ".build/bench-resume"

    func run() throws {
        guard let eval = SampleMedia.evaluationDirectory else {
            print("SKIPPED: no talking-head clip (EVAL_DIR or ../shared/eval)")
            return
        }
        let source = eval.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let clip = "\(workDirectory)/talking-head-\(minutes)min.mp4"
        let frames = try Self.pingPong(source, to: clip, minutes: minutes)
        let program = mien ?? OutputsBench.besideThisProgram
        let name = (clip as NSString).lastPathComponent
        var table: [[String: Double]] = []
        for round in 0..<rounds {
            let whole = "\(workDirectory)/whole"
            try? FileManager.default.removeItem(atPath: whole)
            let uninterrupted = try timed(program, clip, output: whole)
            try? FileManager.default.removeItem(atPath: whole + "-plain")
            // What keeping the snapshots costs: the same run with none due.
            let plain = try timed(program, clip, output: whole + "-plain", extra: ["--snapshot-every", "1000000"])
            let expected = try Data(contentsOf: URL(fileURLWithPath: "\(whole)/\(name).jsonl"))

            let once = "\(workDirectory)/once"
            try? FileManager.default.removeItem(atPath: once)
            let first = try killed(program, clip, output: once, after: Int(Double(frames) * killAt), name: name)
            let resumed = try timed(program, clip, output: once, resume: true)
            let onceEqual = try Data(contentsOf: URL(fileURLWithPath: "\(once)/\(name).jsonl")) == expected

            let twice = "\(workDirectory)/twice"
            try? FileManager.default.removeItem(atPath: twice)
            var total = try killed(program, clip, output: twice, after: frames / 3, name: name)
            total += try killed(program, clip, output: twice, after: 2 * frames / 3, name: name, resume: true)
            total += try timed(program, clip, output: twice, resume: true)
            let twiceEqual = try Data(contentsOf: URL(fileURLWithPath: "\(twice)/\(name).jsonl")) == expected

            let row = [
                "round": Double(round), "frames": Double(frames), "uninterrupted_s": round3(uninterrupted),
                "without_snapshots_s": round3(plain),
                "killed_run_s": round3(first), "resume_s": round3(resumed),
                "resume_ratio": round3(resumed / uninterrupted), "twice_total_s": round3(total),
                "twice_ratio": round3(total / uninterrupted), "outputs_equal": onceEqual && twiceEqual ? 1 : 0,
            ]
            table.append(row)
            print(
                "round \(round): uninterrupted \(round3(uninterrupted)) s (\(round3(plain)) s keeping no snapshot); killed at \(Int(killAt * 100)) % after "
                    + "\(round3(first)) s, resumed in \(round3(resumed)) s (\(round3(resumed / uninterrupted)) x); "
                    + "killed twice, \(round3(total)) s in all (\(round3(total / uninterrupted)) x); outputs equal: "
                    + "\(onceEqual && twiceEqual)")
        }
        let data = try JSONSerialization.data(
            withJSONObject: [
                "benchmark": "resume", "clip": clip, "metrics": metrics, "kill_at": killAt, "runs": table,
            ],
            options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// The wall time of one `mien analyze` run to its end.
    private func timed(
        _ program: String, _ clip: String, output: String, resume: Bool = false, extra: [String] = []
    ) throws -> Double {
        let start = ContinuousClock.now
        let process = try launch(program, clip, output: output, resume: resume, extra: extra)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw MienError(.ioFailure, "exited with \(process.terminationStatus)", input: program)
        }
        return (ContinuousClock.now - start).milliseconds / 1000
    }

    /// Starts a run, kills it (SIGKILL) once `frames` frames are in its JSON Lines file; returns its wall time.
    private func killed(
        _ program: String, _ clip: String, output: String, after frames: Int, name: String, resume: Bool = false
    ) throws -> Double {
        let start = ContinuousClock.now
        let process = try launch(program, clip, output: output, resume: resume)
        let counter = LineCounter(folder: output, prefix: ".\(name).jsonl.partial-")
        while process.isRunning, counter.lines() < frames { Thread.sleep(forTimeInterval: 0.02) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return (ContinuousClock.now - start).milliseconds / 1000
    }

    private func launch(
        _ program: String, _ clip: String, output: String, resume: Bool, extra: [String] = []
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments =
            ["analyze", clip, "--metrics", metrics, "--output", output] + (resume ? ["--resume"] : []) + extra
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Writes `source` played forward, then backward, and so on, to `minutes` of video at its rate (once: the
    /// clip is kept); returns the frame count.
    static func pingPong(_ source: String, to clip: String, minutes: Double) throws -> Int {
        let video = try VideoFileSource(path: source)
        var frames: [Frame] = []
        while let frame = try video.nextFrame() { frames.append(frame) }
        guard frames.count > 1, let first = frames.first else {
            throw MienError(.corruptData, "fewer than two frames", input: source)
        }
        let rate = video.info.framesPerSecond ?? 25
        let count = Int(minutes * 60 * rate)
        if FileManager.default.fileExists(atPath: clip) { return count }
        let order = Array(frames.indices) + Array(frames.indices.reversed().dropFirst().dropLast())
        let writer = try VideoWriter(
            path: clip + ".partial.mp4", width: first.width, height: first.height, framesPerSecond: rate)
        for index in 0..<count {
            var frame = frames[order[index % order.count]]
            frame.index = index
            frame.timestamp = Double(index) / rate
            try writer.write(frame)
        }
        try writer.finish()
        try FileManager.default.moveItem(atPath: clip + ".partial.mp4", toPath: clip)
        return count
    }
}

/// Counts the lines of the newest file in `folder` whose name starts with `prefix`, reading only what was
/// added since the last look.
final class LineCounter {
    let folder: String
    let prefix: String
    private var path: String?
    private var offset: UInt64 = 0
    private var count = 0

    init(folder: String, prefix: String) {
        self.folder = folder
        self.prefix = prefix
    }

    func lines() -> Int {
        if path == nil {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            path = names.first { $0.hasPrefix(prefix) }.map { "\(folder)/\($0)" }
        }
        guard let path, let handle = FileHandle(forReadingAtPath: path) else { return count }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = (try? handle.readToEnd()) ?? Data()
        offset += UInt64(data.count)
        count += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        return count
    }
}
