import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import Mien
import MienTesting
import NIOCore
import NIOWebSocket
import Synchronization
import WSCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MienDev bench-study` (`make bench-study`): how many participants of a collected study one `mien serve` keeps at
/// 10 fps with at least 95 % of their frames analysed.
///
/// A study folder is made (`mien study init`, a stimulus of `--seconds`), the service serves it on loopback, and
/// for each count of `--participants`, that many clients consent and stream 640x480 JPEG frames of the sample
/// (quality 85, as the page sends) at `--fps` on the stimulus's media time, then say the stimulus ended. Each
/// participant's share of frames analysed is read from their `session.json` (what the dashboard shows). Prints a
/// table, then a JSON line; the server is stopped by its PID.
struct BenchStudy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-study",
        abstract: "Participants of a collected study at 10 fps against one `mien serve --studies` on loopback.")

    @Option(help: "The mien binary to serve with.") var mien = ".build/release/mien"
    @Option(help: "Participants at once, per round (comma-separated).") var participants = "1,4,8,12,14,16"
    @Option(help: "Seconds each participant streams (the stimulus's length).") var seconds = 20.0
    @Option(help: "Frames per second each participant sends.") var fps = 10.0
    @Option(help: "Share of frames analysed a participant must keep.") var threshold = 0.95

    func run() async throws {
        let counts = participants.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        guard !counts.isEmpty, seconds > 0, fps > 0 else { throw ValidationError("nothing to measure") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mien-bench-study-\(getpid())")
        defer {
            if ProcessInfo.processInfo.environment["MIEN_KEEP"] == nil { try? FileManager.default.removeItem(at: work) }
        }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let stimulus = work.appendingPathComponent("stimulus.mp4").path
        try Self.run(
            CommandLine.arguments[0],
            [
                "make-clip", "--width", "320", "--height", "240", "--frames", "\(Int(seconds * 15))", "--fps", "15",
                stimulus,
            ])
        var rows: [[String: Any]] = []
        let frames = try Self.jpegFrames()
        print(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; \(Int(fps)) fps of 640x480 JPEG, every metric, \(seconds) s per participant"
        )
        print(
            "| participants | frames sent | analysed | lowest share analysed | median share | all >= \(Int(threshold * 100)) % | server peak RSS MB |"
        )
        print("|---|---|---|---|---|---|---|")
        var capacity = 0
        for (round, count) in counts.enumerated() {
            // A study per round: participant IDs and the server's state start afresh.
            let studies = work.appendingPathComponent("round\(round)")
            try FileManager.default.createDirectory(at: studies, withIntermediateDirectories: true)
            try Self.run(mien, ["study", "init", studies.appendingPathComponent("bench").path, "--stimulus", stimulus])
            let server = try ServerProcess(
                mien: mien, maximumSessions: count + 1, arguments: ["--studies", studies.path])
            defer { server.stop() }
            // One short participant first, so the networks are compiled before anything is timed.
            let study = studies.appendingPathComponent("bench")
            _ = try await participant("warmup", port: server.port, frames: frames, seconds: 1, study: study)
            let outcomes = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for index in 0..<count {
                    group.addTask {
                        try await self.participant(
                            "p\(index)", port: server.port, frames: frames, seconds: self.seconds, study: study)
                    }
                }
                var all: [(Int, Int)] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            let shares = outcomes.map { Double($0.1) / Double(max(1, $0.0)) }.sorted()
            let lowest = shares.first ?? 0
            let median = shares[shares.count / 2]
            let kept = lowest >= threshold
            if kept { capacity = max(capacity, count) }
            let rss = MemoryUse.peakResidentMegabytes(ofProcess: server.pid).rounded(toPlaces: 1)
            print(
                "| \(count) | \(outcomes.reduce(0) { $0 + $1.0 }) | \(outcomes.reduce(0) { $0 + $1.1 }) | "
                    + "\((lowest * 100).rounded(toPlaces: 1)) % | \((median * 100).rounded(toPlaces: 1)) % | \(kept ? "yes" : "no") | \(rss) |"
            )
            rows.append([
                "participants": count, "sent": outcomes.reduce(0) { $0 + $1.0 },
                "analysed": outcomes.reduce(0) { $0 + $1.1 }, "lowest_share": lowest.rounded(toPlaces: 4),
                "median_share": median.rounded(toPlaces: 4), "server_peak_rss_mb": rss,
            ])
        }
        print("participants kept at \(Int(fps)) fps with >= \(Int(threshold * 100)) % of frames analysed: \(capacity)")
        let summary: [String: Any] = [
            "bench_study": [
                "rounds": rows, "capacity": capacity, "fps": fps, "seconds": seconds, "threshold": threshold,
            ]
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// 30 different 640x480 frames of the sample panning and zooming, as JPEG (quality 85).
    static func jpegFrames() throws -> [[UInt8]] {
        let clip = try SampleMedia.astronautClip(width: 640, height: 480, frameCount: 30)
        return try (0..<30).map { try clip.frame(at: $0).encoded(as: .jpeg(quality: 85)) }
    }

    /// One participant: consent, then `seconds` of frames on the stimulus's socket, then the end; returns the
    /// frames the server accepted and analysed, from their session.
    private func participant(
        _ id: String, port: Int, frames: [[UInt8]], seconds: Double, study: URL
    ) async throws -> (Int, Int) {
        guard let url = URL(string: "http://127.0.0.1:\(port)/studies/bench/sessions") else {
            throw ValidationError("no URL for port \(port)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"agreed":true,"participant":"\#(id)"}"#.utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        guard let admission = try JSONSerialization.jsonObject(with: body) as? [String: Any],
            let token = admission["token"] as? String
        else { throw MienError(.internalFailure, "consent refused: \(String(decoding: body, as: UTF8.self))") }
        let fps = self.fps
        let total = Int(seconds * fps)
        _ = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/studies/bench/live?session=\(token)&stimulus=stimulus",
            configuration: .init(maxFrameSize: 1 << 24), logger: Logger(label: "bench-study")
        ) { inbound, outbound, _ in
            var iterator = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
            _ = try await iterator.next()  // ready
            let start = ContinuousClock.now
            for index in 0..<total {
                try await Task.sleep(until: start + .milliseconds(Int(Double(index) * 1000 / fps)))
                var bits = (Double(index) * 1000 / fps).bitPattern.littleEndian
                var message = withUnsafeBytes(of: &bits) { Array($0) }
                message += frames[index % frames.count]
                try await outbound.write(.binary(ByteBuffer(bytes: message)))
            }
            try await outbound.write(.text(#"{"type":"end"}"#))
            while let message = try await iterator.next() {
                if case .text(let text) = message, text.contains(#""ended""#) { break }
            }
        }
        // What the server recorded for the participant: their session (the dashboard's figures come from it).
        let file = study.appendingPathComponent("participants/\(id)/session.json")
        let session = try JSONDecoder().decode(ParticipantSession.self, from: Data(contentsOf: file))
        let progress = session.stimuli["stimulus"] ?? .init()
        return (progress.frames, progress.analysed)
    }

    /// Runs a command to its end.
    /// - Throws: when it fails.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw MienError(
                .internalFailure,
                "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }
}
