import Foundation
import Glibc
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
    static func run(_ path: String, _ arguments: [String]) throws -> (seconds: Double, megabytes: Double) {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw MienError(.ioFailure, "cannot start (\(spawned))", input: path) }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw MienError(.ioFailure, "lost its child", input: path) }
        let seconds = (ContinuousClock.now - start).milliseconds / 1000
        guard status == 0 else {
            throw MienError(.ioFailure, "exited with status \(status) for \(arguments.joined(separator: " "))", input: path)
        }
        // ru_maxrss is in kilobytes on Linux.
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }
}
