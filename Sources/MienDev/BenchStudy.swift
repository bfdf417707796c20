import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import Mien
import MienCore
import MienStudies
import MienTesting
import NIOCore
import NIOWebSocket
import WSCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MienDev bench-study` (`make bench-study`): how many participants of a collected study one `mien serve` takes at
/// once with at least 95 % of their frames analysed, slowing pages down (to the study's floor) as it fills, and how
/// long those past its capacity wait.
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
    @Option(help: "The server's --analysis-rate (default: its own, from the machine; a large value: never slowed).")
    var analysisRate: Double?

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
            "| participants | frames sent | analysed | lowest share analysed | median share | lowest share of the stimulus measured | lowest rate asked (fps) | waited in the queue (longest) | all in, all >= \(Int(threshold * 100)) % | server peak RSS MB | server CPU ms per analysed frame |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        var capacity = 0
        for (round, count) in counts.enumerated() {
            // A study per round: participant IDs and the server's state start afresh.
            let studies = work.appendingPathComponent("round\(round)")
            try FileManager.default.createDirectory(at: studies, withIntermediateDirectories: true)
            let folder = studies.appendingPathComponent("bench")
            try Self.run(
                mien, ["study", "init", folder.path, "--stimulus", stimulus, "--contact", "bench@example.org"])
            // Every simulated participant comes from this machine's address: the per-address consent limit is
            // lifted for the bench (a real panel's participants come from their own).
            var settings = try CollectionSettings.read(folder: folder)
            settings.fieldwork.consentBurst = 100_000
            try CollectionFolder.writeAtomically(try settings.encoded(), to: CollectionFolder(folder).settings.path)
            let server = try ServerProcess(
                mien: mien, maximumSessions: count + 1,
                arguments: ["--studies", studies.path] + (analysisRate.map { ["--analysis-rate", "\($0)"] } ?? []))
            defer { server.stop() }
            // One short participant first, so the networks are compiled before anything is timed.
            let study = studies.appendingPathComponent("bench")
            _ = try await participant("warmup", port: server.port, frames: frames, seconds: 1, study: study)
            let cpuBefore = MemoryUse.cpuSeconds(ofProcess: server.pid)
            let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for index in 0..<count {
                    group.addTask {
                        try await self.participant(
                            "p\(index)", port: server.port, frames: frames, seconds: self.seconds, study: study)
                    }
                }
                var all: [Outcome] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            let cpuAfter = MemoryUse.cpuSeconds(ofProcess: server.pid)
            let analysed = outcomes.reduce(0) { $0 + $1.analysed }
            // The server's CPU time for the round (all its threads: networks, decoding, sockets, files) per frame
            // it analysed: what a frame costs, which sets how many participants the machine's cores can take.
            let cpuPerFrame: Double? =
                if let cpuBefore, let cpuAfter, analysed > 0 {
                    (cpuAfter - cpuBefore) * 1000 / Double(analysed)
                } else {
                    nil
                }
            let shares = outcomes.map { Double($0.analysed) / Double(max(1, $0.sent)) }.sorted()
            let lowest = shares.first ?? 0
            let median = shares[shares.count / 2]
            let lowestCoverage = outcomes.map(\.coverage).min() ?? 0
            let lowestRate = outcomes.map(\.lowestRate).min() ?? fps
            let queued = outcomes.filter { $0.waited > 0 }
            let longestWait = queued.map(\.waited).max() ?? 0
            let kept = lowest >= threshold && queued.isEmpty
            if kept { capacity = max(capacity, count) }
            let rss = MemoryUse.peakResidentMegabytes(ofProcess: server.pid).rounded(toPlaces: 1)
            print(
                "| \(count) | \(outcomes.reduce(0) { $0 + $1.sent }) | \(analysed) | "
                    + "\((lowest * 100).rounded(toPlaces: 1)) % | \((median * 100).rounded(toPlaces: 1)) % | "
                    + "\((lowestCoverage * 100).rounded(toPlaces: 1)) % | \(lowestRate.rounded(toPlaces: 2)) | "
                    + "\(queued.count) (\(longestWait.rounded(toPlaces: 1)) s) | \(kept ? "yes" : "no") | \(rss) | "
                    + "\(cpuPerFrame.map { "\($0.rounded(toPlaces: 2))" } ?? "-") |"
            )
            rows.append([
                "participants": count, "sent": outcomes.reduce(0) { $0 + $1.sent },
                "analysed": analysed, "lowest_share": lowest.rounded(toPlaces: 4),
                "median_share": median.rounded(toPlaces: 4), "lowest_coverage": lowestCoverage.rounded(toPlaces: 4),
                "lowest_rate": lowestRate, "queued": queued.count, "longest_wait_s": longestWait.rounded(toPlaces: 2),
                "server_peak_rss_mb": rss,
                // null when the server's /proc entry could not be read (no figure rather than a made-up 0).
                "server_cpu_ms_per_frame": cpuPerFrame.map { $0.rounded(toPlaces: 3) as Any } ?? NSNull(),
            ])
        }
        print(
            "participants let in at once (none waiting) with >= \(Int(threshold * 100)) % of their frames analysed: \(capacity)"
        )
        let summary: [String: Any] = [
            "bench_study": [
                "rounds": rows, "capacity": capacity, "fps": fps, "seconds": seconds, "threshold": threshold,
                "analysis_rate": analysisRate ?? 0,
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

    /// What one participant of a round met.
    struct Outcome: Sendable {
        /// Frames the server accepted, and of those analysed (from their session).
        var sent: Int
        var analysed: Int
        /// Share of the stimulus measured (the session's coverage).
        var coverage: Double
        /// The lowest frame rate the server asked for.
        var lowestRate: Double
        /// Seconds waited in the queue before the socket was ready (0: let in at once).
        var waited: Double
    }

    /// What a participant's socket has heard so far (shared by its reading and sending tasks).
    private final class Ear: Sendable {
        let heard: Locked<Heard>
        let waited = Locked(0.0)
        init(rate: Double) { heard = Locked(Heard(rate: rate, lowestRate: rate)) }
    }

    private struct Heard: Sendable {
        var ready = false
        var queued = false
        var rate: Double
        var lowestRate: Double
        var ended = false
    }

    /// One participant: consent, the framing check, then `seconds` of frames on the stimulus's socket at the rate the server asks
    /// for (waiting in its queue first when it is full), then the end; what they met, from their session.
    private func participant(
        _ id: String, port: Int, frames: [[UInt8]], seconds: Double, study: URL
    ) async throws -> Outcome {
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
        // The framing check the server judges (a stimulus needs it), before the stimulus's socket and its wait.
        try await FramingCheck.pass(url: "ws://127.0.0.1:\(port)/studies/bench/live?session=\(token)", frames: frames)
        let ear = Ear(rate: fps)
        let opened = ContinuousClock.now
        _ = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/studies/bench/live?session=\(token)&stimulus=stimulus",
            configuration: .init(maxFrameSize: 1 << 24), logger: Logger(label: "bench-study")
        ) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        guard case .text(let text) = message,
                            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                        else { continue }
                        let rate = object["frameRate"] as? Double
                        ear.heard.withLock { heard in
                            switch object["type"] as? String {
                            case "queued": heard.queued = true
                            case "ready": heard.ready = true
                            case "ended": heard.ended = true
                            default: break
                            }
                            if let rate {
                                heard.rate = rate
                                heard.lowestRate = min(heard.lowestRate, rate)
                            }
                        }
                        if ear.heard.withLock({ $0.ended }) { return }
                    }
                }
                while !ear.heard.withLock({ $0.ready }) { try await Task.sleep(for: .milliseconds(20)) }
                ear.waited.withLock { $0 = (ContinuousClock.now - opened).milliseconds / 1000 }
                // Media time runs as the clock does; frames are sent at the rate asked for at each moment.
                let start = ContinuousClock.now
                var index = 0
                while true {
                    let media = (ContinuousClock.now - start).milliseconds / 1000
                    guard media < seconds else { break }
                    var bits = (media * 1000).bitPattern.littleEndian
                    var message = withUnsafeBytes(of: &bits) { Array($0) }
                    message += frames[index % frames.count]
                    index += 1
                    try await outbound.write(.binary(ByteBuffer(bytes: message)))
                    let rate = ear.heard.withLock { $0.rate }
                    try await Task.sleep(for: .milliseconds(Int(1000 / rate)))
                }
                try await outbound.write(.text(#"{"type":"end"}"#))
                try await group.next()
                group.cancelAll()
            }
        }
        // What the server recorded for the participant: their session (the dashboard's figures come from it).
        let file = study.appendingPathComponent("participants/\(id)/session.json")
        let session = try JSONDecoder().decode(ParticipantSession.self, from: Data(contentsOf: file))
        let progress = session.stimuli["stimulus"] ?? .init()
        return Outcome(
            sent: progress.frames, analysed: progress.analysed, coverage: progress.coverage,
            lowestRate: ear.heard.withLock { $0.lowestRate },
            waited: ear.heard.withLock { $0.queued } ? ear.waited.withLock { $0 } : 0)
    }

    /// Runs a command to its end.
    /// - Throws: when it fails.
    /// - Parameter environment: variables set on top of this process's (a database's URL: never an argument).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
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
