import ArgumentParser
import Foundation
import Mien
import MienTesting

/// What the outputs of `mien analyze` cost: the same clip analysed with `--output` alone, with `--report`
/// and with `--annotate`, each run as its own `mien` process (wall time and its own peak RSS).
///
/// Issue "One pipeline" asks that the report and the annotation each cost at most 10 % over plain output
/// and that annotating stay under 300 MB. Runs are interleaved (plain, report, annotate, plain, ...) so a
/// slower moment of the machine falls on every variant alike; the best of `runs` is reported.
struct OutputsBench {
    var mien: String
    var runs: Int
    var workDirectory: String

    /// One measured variant.
    struct Row {
        var label: String
        var seconds: Double
        var peakMegabytes: Double
    }

    /// Measures the three variants on `clip`.
    func measure(clip: String) throws -> [Row] {
        let variants: [(String, [String])] = [
            ("--output", []),
            ("--output --report", ["--report", "\(workDirectory)/outputs-report.html"]),
            ("--output --annotate", ["--annotate", "\(workDirectory)/outputs-annotated"]),
        ]
        var best: [String: (seconds: Double, megabytes: Double)] = [:]
        for _ in 0..<max(1, runs) {
            for (label, extra) in variants {
                let output = "\(workDirectory)/outputs-\(label.filter(\.isLetter))"
                try? FileManager.default.removeItem(atPath: output)
                let (seconds, megabytes) = try Self.run(mien, ["analyze", clip, "--output", output] + extra)
                let previous = best[label] ?? (.infinity, 0)
                best[label] = (min(previous.seconds, seconds), max(previous.megabytes, megabytes))
            }
        }
        return variants.map { label, _ in
            Row(label: label, seconds: best[label]?.seconds ?? .nan, peakMegabytes: best[label]?.megabytes ?? .nan)
        }
    }

    /// Runs `path` with `arguments` (output discarded); returns its wall time and its own peak RSS.
    ///
    /// Linux keeps a process's peak RSS across `exec`, and a child spawned from this process starts with
    /// this process's memory counted (posix_spawn shares it until the exec): measured here, every child
    /// "peaked" at MienDev's 343 MB. So a small Python process forks and execs the program and reports
    /// `wait4`'s figure, as GNU time does.
    static func run(_ path: String, _ arguments: [String]) throws -> (seconds: Double, megabytes: Double) {
        let launcher = """
            import os, sys, time
            start = time.monotonic()
            pid = os.fork()
            if pid == 0:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1); os.dup2(devnull, 2)
                os.execv(sys.argv[1], sys.argv[1:])
            _, status, usage = os.wait4(pid, 0)
            print(time.monotonic() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", launcher, path] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard process.terminationStatus == 0, fields.count == 3 else {
            throw MienError(.ioFailure, "could not be timed (python3 needed): \(text)", input: path)
        }
        guard fields[2] == 0 else {
            throw MienError(
                .ioFailure, "exited with \(Int(fields[2])) for \(arguments.joined(separator: " "))", input: path)
        }
        // ru_maxrss is in kilobytes on Linux.
        return (fields[0], fields[1] / 1024)
    }
}

/// `MienDev bench-outputs`: the three `mien analyze` variants alone, for one or more `mien` builds in the
/// same run (`--mien old/mien --mien new/mien` compares two builds on the same clip, interleaved).
struct BenchOutputs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-outputs",
        abstract: "Time mien analyze with --output, --report and --annotate on the 720p talking head (200 frames).")

    @Option(help: "A mien executable to time (repeat to compare builds; default: the one beside MienDev).")
    var mien: [String] = []
    @Option(help: "Runs per variant; the best is reported.") var runs = 3
    @Option(help: "Folder for the clip and the outputs.") var workDirectory = ".build/bench"

    func run() throws {
        guard let clip = try OutputsBench.clip(workDirectory: workDirectory) else {
            print("SKIPPED: no talking-head clip (EVAL_DIR or ../shared/eval)")
            return
        }
        let programs = mien.isEmpty ? [OutputsBench.besideThisProgram] : mien
        var table: [[String: Any]] = []
        for round in 0..<runs {
            for program in programs {
                for row in try OutputsBench(mien: program, runs: 1, workDirectory: workDirectory).measure(clip: clip) {
                    table.append([
                        "mien": program, "round": round, "variant": row.label, "seconds": round3(row.seconds),
                        "peak_rss_mb": round3(row.peakMegabytes),
                    ])
                    print("\(program) \(row.label): \(round3(row.seconds)) s, peak RSS \(round3(row.peakMegabytes)) MB")
                }
            }
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["benchmark": "analyze-outputs", "runs": table], options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}

extension OutputsBench {
    /// The `mien` executable beside this program.
    static var besideThisProgram: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mien").path
    }

    /// The clip issue "One pipeline" timed: the talking head letterboxed to 1280 x 720, its first 200 frames;
    /// nil without the evaluation data.
    static func clip(workDirectory: String) throws -> String? {
        guard let eval = SampleMedia.evaluationDirectory else { return nil }
        let talking = eval.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        guard FileManager.default.fileExists(atPath: talking) else { return nil }
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let clip = "\(workDirectory)/talking-head-1280x720-200.mp4"
        if !FileManager.default.fileExists(atPath: clip) {
            try Letterboxed.transcode(input: talking, output: clip, width: 1280, height: 720, maximumFrames: 200)
        }
        return clip
    }
}
