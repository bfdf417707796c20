import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import Mien
import MienCore
import MienTesting
import NIOCore
import NIOWebSocket
import WSCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MienDev bench-serve` (`make bench-serve`): live sessions and `/v1/analyze` against `mien serve`.
///
/// The service runs in its own process on a loopback port, driven by WebSocket clients that send 720p JPEG
/// frames at 30 fps with every metric on, then by HTTP clients posting pictures to `/v1/analyze`. Prints a
/// table, then a JSON line. Bounded: at most `--sessions`' largest count of clients, each for `--seconds`;
/// the server is stopped by its PID at the end.
struct BenchServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-serve", abstract: "Live sessions and /v1/analyze against `mien serve` on loopback.")

    @Option(help: "The mien binary to serve with.") var mien = ".build/release/mien"
    @Option(help: "Seconds each live scenario sends frames.") var seconds = 10.0
    @Option(help: "Frames per second each live client sends.") var fps = 30.0
    @Option(help: "Live sessions at once, per scenario (comma-separated).") var sessions = "1,4"
    @Option(
        help:
            "Rate caps to try with one client stamping frames with its own clock (as a browser's performance.now()), comma-separated."
    ) var senderClockRates = "30,15"
    @Option(help: "Concurrent /v1/analyze clients.") var analyzeClients = 4
    @Option(help: "Seconds of /v1/analyze requests.") var analyzeSeconds = 5.0

    func run() async throws {
        let counts = sessions.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        guard !counts.isEmpty, seconds > 0, fps > 0 else { throw ValidationError("nothing to measure") }
        let server = try ServerProcess(mien: mien, maximumSessions: counts.max() ?? 1)
        defer { server.stop() }
        let frames = try Self.jpegFrames()
        // One short session first, so the networks are compiled before anything is timed (the service keeps
        // them for its life; the first session of a fresh process waits about 0.5 s for them).
        _ = try await Self.liveClient(frames: frames, port: server.port, fps: fps, seconds: 1)
        print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; mien serve on port \(server.port)")
        print(
            "| scenario | frames sent | results | analysed | unprocessed (skipped or dropped) | refused | p50 ms | p99 ms | max ms | server peak RSS MB |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        var rows: [[String: Any]] = []
        for count in counts {
            let row = try await live(sessions: count, frames: frames, port: server.port)
            var summary = row.summary
            summary["server_peak_rss_mb"] = MemoryUse.peakResidentMegabytes(ofProcess: server.pid).rounded(toPlaces: 1)
            print(
                "| \(count) session(s), 720p, \(Int(fps)) fps, every metric | \(row.sent) | \(row.results) | "
                    + "\(row.analysed) | \(row.unprocessed) | \(row.refused) | \(summary["p50_ms"] ?? 0) | "
                    + "\(summary["p99_ms"] ?? 0) | \(summary["max_ms"] ?? 0) | \(summary["server_peak_rss_mb"] ?? 0) |")
            rows.append(summary)
        }
        // A sender's clock jitters by the timer's lateness: the rate cap must still deliver the asked rate.
        var clocked: [[String: Any]] = []
        for rate in senderClockRates.split(separator: ",").compactMap({ Double($0) }).filter({ $0 > 0 }) {
            let row = try await Self.liveClient(
                frames: frames, port: server.port, fps: fps, seconds: seconds, rate: rate, senderClock: true)
            let perSecond = (Double(row.analysed) / seconds).rounded(toPlaces: 2)
            print(
                "1 session, \(Int(fps)) fps stamped by the sender's clock, rate=\(rate): \(row.analysed) of \(row.sent) "
                    + "analysed, \(perSecond) per second")
            clocked.append([
                "rate": rate, "sent": row.sent, "analysed": row.analysed, "analysed_per_second": perSecond,
            ])
        }
        let analyze = try await analyzeThroughput(picture: frames[0], port: server.port)
        print(
            "/v1/analyze, \(analyzeClients) clients, 720p JPEG, every metric: \(analyze["requests_per_second"] ?? 0) requests/s, "
                + "p50 \(analyze["p50_ms"] ?? 0) ms, p99 \(analyze["p99_ms"] ?? 0) ms, errors \(analyze["errors"] ?? 0)"
        )
        let summary: [String: Any] = [
            "bench_serve": [
                "live": rows, "analyze": analyze, "sender_clock": clocked,
                "server_peak_rss_mb": MemoryUse.peakResidentMegabytes(ofProcess: server.pid).rounded(toPlaces: 1),
            ]
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// 30 different 720p frames of the sample panning and zooming, as JPEG (quality 85, as a browser sends).
    static func jpegFrames() throws -> [[UInt8]] {
        let clip = try SampleMedia.astronautClip(width: 1280, height: 720, frameCount: 30)
        return try (0..<30).map { try clip.frame(at: $0).encoded(as: .jpeg(quality: 85)) }
    }

    /// What one live scenario measured, all clients together.
    struct LiveRow {
        var sent = 0
        var results = 0
        var analysed = 0
        var unprocessed = 0
        var refused = 0
        var latencies: [Double] = []

        var summary: [String: Any] {
            [
                "sent": sent, "results": results, "analysed": analysed, "unprocessed": unprocessed,
                "refused": refused,
                "p50_ms": Statistics.quantile(latencies, 0.5).rounded(toPlaces: 1),
                "p99_ms": Statistics.quantile(latencies, 0.99).rounded(toPlaces: 1),
                "max_ms": (latencies.max() ?? 0).rounded(toPlaces: 1),
            ]
        }

        mutating func add(_ other: LiveRow) {
            sent += other.sent
            results += other.results
            analysed += other.analysed
            unprocessed += other.unprocessed
            refused += other.refused
            latencies += other.latencies
        }
    }

    /// `count` clients at once, each sending `fps` frames a second for `seconds`; latency is from sending a
    /// frame to receiving its result, for analysed frames.
    private func live(sessions count: Int, frames: [[UInt8]], port: Int) async throws -> LiveRow {
        let (fps, seconds) = (self.fps, self.seconds)
        return try await withThrowingTaskGroup(of: LiveRow.self) { group in
            for _ in 0..<count {
                group.addTask { try await Self.liveClient(frames: frames, port: port, fps: fps, seconds: seconds) }
            }
            var total = LiveRow()
            for try await row in group { total.add(row) }
            return total
        }
    }

    /// One client sending `fps` frames a second for `seconds` at `rate` (default: `fps`); with `senderClock`
    /// each frame is stamped with the time it is sent, as a browser's `performance.now()`, rather than with
    /// an exact multiple of the interval.
    private static func liveClient(
        frames: [[UInt8]], port: Int, fps: Double, seconds: Double, rate: Double? = nil, senderClock: Bool = false
    ) async throws -> LiveRow {
        let books = ClientBooks()
        let total = Int(seconds * fps)
        let logger = Logger(label: "bench-serve")
        _ = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/v1/live?metrics=all&rate=\(rate ?? fps)&maxFaces=1",
            configuration: .init(maxFrameSize: 1 << 24), logger: logger
        ) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let start = ContinuousClock.now
                    for index in 0..<total {
                        let due = start + .milliseconds(Int(Double(index) * 1000 / fps))
                        try await Task.sleep(until: due)
                        // Exact multiples of the interval (a rounded millisecond would fall 0.3 ms short of
                        // 1/30 s every third frame, and the rate cap would skip it).
                        let milliseconds =
                            senderClock ? (ContinuousClock.now - start).milliseconds : Double(index) * 1000 / fps
                        var bits = milliseconds.bitPattern.littleEndian
                        var message = withUnsafeBytes(of: &bits) { Array($0) }
                        message += frames[index % frames.count]
                        books.sentAt.withLock { $0[Self.key(milliseconds / 1000)] = ContinuousClock.now }
                        try await outbound.write(.binary(ByteBuffer(bytes: message)))
                        books.row.withLock { $0.sent += 1 }
                    }
                    // Results for the last frames, then close.
                    try await Task.sleep(for: .seconds(2))
                    try await outbound.close(.normalClosure, reason: nil)
                }
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    guard case .text(let text) = message,
                        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    else { continue }
                    let now = ContinuousClock.now
                    switch object["type"] as? String {
                    case "result":
                        let result = object["result"] as? [String: Any] ?? [:]
                        let key = Self.key(result["timestamp"] as? Double ?? -1)
                        let sent = books.sentAt.withLock { $0.removeValue(forKey: key) }
                        books.row.withLock { row in
                            row.results += 1
                            if result["faces"] != nil {
                                row.analysed += 1
                                if let sent { row.latencies.append((now - sent).milliseconds) }
                            } else {
                                row.unprocessed += 1
                            }
                        }
                    case "error":
                        books.row.withLock { $0.refused += 1 }
                    default:
                        continue
                    }
                }
                group.cancelAll()
            }
        }
        return books.row.withLock { $0 }
    }

    /// A frame's timestamp (seconds) as a dictionary key, to the microsecond.
    static func key(_ seconds: Double) -> Int { Int((seconds * 1_000_000).rounded()) }

    /// `analyzeClients` clients posting the same 720p JPEG to `/v1/analyze?metrics=all` back to back.
    private func analyzeThroughput(picture: [UInt8], port: Int) async throws -> [String: Any] {
        let (clients, seconds) = (analyzeClients, analyzeSeconds)
        guard let url = URL(string: "http://127.0.0.1:\(port)/v1/analyze?metrics=all") else {
            throw ValidationError("no URL for port \(port)")
        }
        let start = ContinuousClock.now
        let (latencies, errors) = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for _ in 0..<clients {
                group.addTask {
                    var latencies: [Double] = []
                    var errors = 0
                    while ContinuousClock.now - start < .seconds(seconds) {
                        var request = URLRequest(url: url)
                        request.httpMethod = "POST"
                        request.httpBody = Data(picture)
                        let sent = ContinuousClock.now
                        let (_, response) = try await URLSession.shared.data(for: request)
                        if (response as? HTTPURLResponse)?.statusCode == 200 {
                            latencies.append((ContinuousClock.now - sent).milliseconds)
                        } else {
                            errors += 1
                        }
                    }
                    return (latencies, errors)
                }
            }
            var all: ([Double], Int) = ([], 0)
            for try await (latencies, errors) in group {
                all.0 += latencies
                all.1 += errors
            }
            return all
        }
        let elapsed = (ContinuousClock.now - start).milliseconds / 1000
        return [
            "clients": clients, "requests": latencies.count, "errors": errors,
            "requests_per_second": (Double(latencies.count) / elapsed).rounded(toPlaces: 1),
            "p50_ms": Statistics.quantile(latencies, 0.5).rounded(toPlaces: 1),
            "p99_ms": Statistics.quantile(latencies, 0.99).rounded(toPlaces: 1),
        ]
    }
}

/// One live client's counts and the instants its frames were sent (by timestamp in ms), shared by its
/// sending and receiving tasks.
final class ClientBooks: Sendable {
    let row = Locked(BenchServe.LiveRow())
    let sentAt = Locked([Int: ContinuousClock.Instant]())
}
