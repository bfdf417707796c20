import Foundation
import Mien
import MienTesting

/// `MienDev soak --mien PATH`: `mien analyze` on one long video (the talking head played forward and back, no
/// cut) with every metric and every file output (JSON Lines, CSV, events, summary, the report and the analysis
/// snapshots), sampling the process's resident memory at intervals of video time (the frames its JSON Lines
/// file holds); then a JSON summary like `soak`'s.
struct SoakAnalyze {
    var mien: String
    var minutes: Double
    var every: Double
    var workDirectory: String

    func run() throws {
        guard let eval = SampleMedia.evaluationDirectory else {
            Soak.say("SKIPPED: no talking-head clip (EVAL_DIR or ../shared/eval)")
            return
        }
        let source = eval.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let clip = "\(workDirectory)/talking-head-\(minutes)min.mp4"
        let frames = try ResumeBench.pingPong(source, to: clip, minutes: minutes)
        let rate = Double(frames) / (minutes * 60)
        let output = "\(workDirectory)/analyze"
        try? FileManager.default.removeItem(atPath: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mien)
        process.arguments = [
            "analyze", clip, "--metrics", "all", "--output", output, "--report", "\(workDirectory)/analyze.html",
        ]
        process.standardError = FileHandle.nullDevice
        Soak.say("soak: mien analyze \(clip), \(minutes) min of video (\(frames) frames), every output")
        let start = ContinuousClock.now
        try process.run()
        let counter = LineCounter(folder: output, prefix: ".\((clip as NSString).lastPathComponent).jsonl.partial-")
        var samples: [[String: Double]] = []
        var nextReport = every
        while process.isRunning {
            Thread.sleep(forTimeInterval: 0.1)
            let videoMinutes = Double(counter.lines()) / rate / 60
            guard videoMinutes >= nextReport else { continue }
            let rss = MemoryUse.residentMegabytes(ofProcess: process.processIdentifier)
            guard rss > 0 else { break }
            samples.append(["videoMinutes": videoMinutes.rounded(toPlaces: 2), "rssMB": rss.rounded(toPlaces: 1)])
            Soak.say("video \(videoMinutes.rounded(toPlaces: 2)) min: RSS \(rss.rounded(toPlaces: 1)) MB")
            nextReport += every
        }
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).milliseconds / 1000
        let first = samples.first?["rssMB"] ?? 0
        let last = samples.last?["rssMB"] ?? 0
        let summary: [String: Any] = [
            "soak": [
                "through": "mien analyze", "clip": clip, "videoMinutes": minutes, "frames": frames,
                "exitStatus": Int(process.terminationStatus), "seconds": seconds.rounded(toPlaces: 1),
                "samples": samples, "rssFirstMB": first, "rssLastMB": last,
                "rssGrowthPercent": first > 0 ? ((last - first) / first * 100).rounded(toPlaces: 2) : 0,
            ]
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        Soak.say(String(decoding: data, as: UTF8.self))
    }
}
