import Foundation
import HummingbirdWSClient
import Logging
import Mien
import MienCore
import NIOCore
import NIOWebSocket
import WSCore

/// A simulated participant's stimulus socket: frames on their media time at the rate the server asks for, what the
/// server says, and the directions fleet-faults gives while they watch.
extension FleetParticipant {
    /// The stimulus's socket: frames until the media time reaches `seconds`, then the end.
    /// - Returns: `.complete` when the server said the stimulus ended; `.cut` when the socket closed first, saying
    ///   nothing; the frames sent; what went wrong; whether the socket was ready.
    func watch(
        _ id: String, token: String, streaming: @escaping @Sendable (Bool) -> Void
    ) async throws -> (End, Int, String, Bool) {
        let heard = Heard()
        heard.state.withLock { $0.rate = fps }
        let sent = Locked(0)
        let opened = Locked(false)
        do {
            try await connect(id, token: token, heard: heard, sent: sent, opened: opened, streaming: streaming)
        } catch  where opened.withLock({ $0 }) {
            // The socket was open, so what it heard decides: the client library can throw as it closes (seen behind
            // nginx after "ended"), and a page that heard "ended" never opens the stimulus again.
        }
        let (ended, error, ready, types) = heard.state.withLock { ($0.ended, $0.error, $0.ready, $0.types) }
        let count = sent.withLock { $0 }
        if ended { return (.complete, count, "", ready) }
        if error == "studyFull" { return (.full, count, "studyFull", ready) }
        // Another socket of theirs is still held (a stopped server's, within its lease): the page comes back.
        if error == "alreadyStreaming" {
            return (.cut, count, "alreadyStreaming (heard \(types.joined(separator: ", ")))", ready)
        }
        // Told another tab of theirs went on: a cut here (where that tab is, `secondTab` says). A socket silent for a
        // minute before it was ready is closed by the page, which comes back as after a cut (participant.html's
        // `socket`); `silent` says so, and what the replicas logged of it is printed.
        if error == Self.silent {
            return (.cut, count, "\(Self.silent) (heard \(types.joined(separator: ", ")))", ready)
        }
        if error == "closed" || error == "replaced" || error == nil {
            return (.cut, count, "socket closed after \(count) frames (heard \(types.joined(separator: ", ")))", ready)
        }
        return (.failed, count, "socket: \(error ?? "closed") (heard \(types.joined(separator: ", ")))", ready)
    }

    /// The page's words for a socket silent for a minute before it was ready.
    static let silent = "not ready, and nothing heard for 60 s"

    /// Connects the stimulus's socket and runs it: what it hears in `heard`, frames sent in `sent`, `opened` once
    /// the upgrade succeeded.
    /// - Throws: when the socket cannot be opened, or the client library fails.
    private func connect(
        _ id: String, token: String, heard: Heard, sent: Locked<Int>, opened: Locked<Bool>,
        streaming: @escaping @Sendable (Bool) -> Void
    ) async throws {
        _ = try await WebSocketClient.connect(
            url: "ws://\(address)/studies/\(study)/live?session=\(token)&stimulus=\(stimulus)",
            configuration: .init(maxFrameSize: 1 << 24), logger: Logger(label: "fleet")
        ) { [frames, seconds] inbound, outbound, _ in
            opened.withLock { $0 = true }
            heard.state.withLock { $0.last = .now }  // open: the server's silence is counted from here
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Ends when the server (or the balancer, its replica gone) closes the socket.
                    do {
                        for try await message in inbound.messages(maxSize: 1 << 24) {
                            guard case .text(let text) = message,
                                let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                            else { continue }
                            heard.state.withLock { state in
                                state.types.append(object["type"] as? String ?? "?")
                                state.last = .now
                                switch object["type"] as? String {
                                case "ready": state.ready = true
                                case "ended": state.ended = true
                                case "replaced": state.error = "replaced"
                                case "error":
                                    // Frames sent ahead of the rate are refused, the socket goes on; any other
                                    // error ends it.
                                    let code = (object["error"] as? [String: Any])?["code"] as? String ?? "error"
                                    if code != "tooFast" { state.error = code }
                                default: break
                                }
                                if let rate = object["frameRate"] as? Double { state.rate = rate }
                            }
                            if heard.state.withLock({ $0.ended }) { return }
                        }
                    } catch {}
                    heard.state.withLock { if $0.error == nil, !$0.ended { $0.error = "closed" } }
                }
                group.addTask {
                    // A page coming back waits while its socket is taken over from a dead replica (10 s at most);
                    // one in the queue hears its place when it changes, and may wait for a participant ahead to
                    // finish (a 25-s limit failed two queued participants whose first message the client library
                    // lost: they were let in later).
                    while heard.state.withLock({ !$0.ready && $0.error == nil }) {
                        guard ContinuousClock.now - heard.state.withLock({ $0.last }) < .seconds(60) else {
                            heard.state.withLock { $0.error = Self.silent }
                            try? await outbound.close(.normalClosure, reason: nil)
                            return
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    guard heard.state.withLock({ $0.error == nil }) else { return }
                    streaming(true)
                    defer { streaming(false) }
                    let start = ContinuousClock.now
                    while heard.state.withLock({ $0.error == nil }) {
                        let media = (ContinuousClock.now - start).milliseconds / 1000
                        guard media < seconds else { break }
                        var bits = (media * 1000).bitPattern.littleEndian
                        let message =
                            withUnsafeBytes(of: &bits) { Array($0) } + frames[sent.withLock { $0 } % frames.count]
                        do {
                            try await outbound.write(.binary(ByteBuffer(bytes: message)))
                        } catch {
                            return
                        }
                        sent.withLock { $0 += 1 }
                        if let directions, let direction = directions.take(id) {
                            switch direction {
                            case .secondTab:
                                // As a second tab of the same browser: the token in its storage, `resume`, the
                                // stimulus again.
                                directions.openTab(id) {
                                    _ = await ask("resume", token: token)
                                    return try await watch(id, token: token, streaming: streaming)
                                }
                            case .returnThrough(let other):
                                // The connection lost: the page comes back, through `other`.
                                directions.setReturn(id, through: other)
                                heard.state.withLock { $0.error = "closed" }
                                try? await outbound.close(.goingAway, reason: nil)
                                return
                            }
                        }
                        try await Task.sleep(for: .milliseconds(Int(1000 / heard.state.withLock { $0.rate })))
                    }
                    guard heard.state.withLock({ $0.error == nil }) else { return }
                    try? await outbound.write(.text(#"{"type":"end"}"#))
                }
                // Both end: the reader when the socket closes (after "ended", or cut), the writer after the end.
                try await group.waitForAll()
            }
        }
    }
}
