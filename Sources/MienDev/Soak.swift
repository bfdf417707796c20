import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev soak`: a long synthetic video (a short clip played in a loop, re-decoded every pass) through a
/// `Detector` with every metric on, results streamed out and dropped; prints resident memory and frames/s
/// at intervals of video time, then a JSON summary with the growth between the first and last interval.
struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Process ≥ 30 min of looped video and report memory and speed over time (make soak).")

    @Option(help: "Minutes of video to process.") var minutes = 30.0
    @Option(help: "Clip to loop (default: the talking head from EVAL_DIR, else the sample pan-and-zoom clip).")
    var clip: String?
    @Option(help: "Minutes of video between report lines.") var every = 2.0
    @Option(help: "Metric groups: all or none (mesh, pose and tracking only).") var metrics = "all"
    @Option(help: "Folder for the generated clip.") var workDirectory = ".build/soak"
    @Option(help: "A mien executable: soak `mien analyze` with every output on a clip this long instead.")
    var mien: String?

    func run() throws {
        if let mien {
            try SoakAnalyze(mien: mien, minutes: minutes, every: every, workDirectory: workDirectory).run()
            return
        }
        let path = try clipPath()
        let models = try ModelStore()
        let total = minutes * 60
        Self.say("soak: \(path) looped to \(minutes) min of video, metrics \(metrics)")
        // The loop is a frame source and the measuring a writer: the run is the one frame loop, as users' are.
        let passes = Locked(0)
        let detector = Detector(
            source: .source(
                name: path, mode: .video, open: { try LoopedClip(path: path, seconds: total, passes: passes) }),
            options: try DetectorOptions(metrics: metrics == "none" ? [] : .all), models: models)
        let soak = SoakWriter(every: every * 60, total: total)
        try DevRun.analyse(detector, into: soak)
        let (frames, bytes, videoTime, samples) = soak.measured
        let first = samples.first?["rssMB"] ?? 0
        let last = samples.last?["rssMB"] ?? 0
        let summary: [String: Any] = [
            "soak": [
                "clip": path, "videoMinutes": (videoTime / 60).rounded(toPlaces: 2), "frames": frames,
                "passes": passes.withLock { $0 }, "outputBytes": bytes, "metrics": metrics, "samples": samples,
                "rssFirstMB": first, "rssLastMB": last, "rssPeakMB": MemoryUse.peakResidentMegabytes,
                "rssGrowthPercent": first > 0 ? ((last - first) / first * 100).rounded(toPlaces: 2) : 0,
                "framesPerSecondFirst": samples.first?["framesPerSecond"] ?? 0.0,
                "framesPerSecondLast": samples.last?["framesPerSecond"] ?? 0.0,
            ]
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        Self.say(String(decoding: data, as: UTF8.self))
    }

    /// Writes a line straight to standard output (not through print's buffer), so a long run can be
    /// watched in a log file and read if cut short.
    static func say(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }

    private func clipPath() throws -> String {
        if let clip { return clip }
        if let eval = SampleMedia.evaluationDirectory {
            let talking = eval.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
            if FileManager.default.fileExists(atPath: talking) { return talking }
        }
        Self.say("NOTE: no evaluation data; looping the sample pan-and-zoom clip instead of the talking head")
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let path = "\(workDirectory)/astronaut-640x360-300.mp4"
        if !FileManager.default.fileExists(atPath: path) {
            try SampleMedia.astronautClip(width: 640, height: 360, frameCount: 300).write(to: path)
        }
        return path
    }
}

/// The process's memory, from /proc (Linux).
enum MemoryUse {
    /// Resident set size now, MB.
    static var residentMegabytes: Double { value(of: "VmRSS:") }
    /// Highest resident set size so far, MB.
    static var peakResidentMegabytes: Double { value(of: "VmHWM:") }

    /// Resident set size now of another process, MB (0 when it is gone).
    static func residentMegabytes(ofProcess pid: Int32) -> Double { value(of: "VmRSS:", process: "\(pid)") }

    /// Highest resident set size so far of another process, MB (0 when it is gone).
    static func peakResidentMegabytes(ofProcess pid: Int32) -> Double { value(of: "VmHWM:", process: "\(pid)") }

    /// CPU time another process has used so far (user and system, all its threads), seconds; nil when it is gone.
    ///
    /// From /proc/PID/stat's utime and stime (fields 14 and 15, in clock ticks). The process name (field 2) may
    /// hold spaces, so fields are counted after its closing parenthesis.
    static func cpuSeconds(ofProcess pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func value(of key: String, process: String = "self") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}
