import Foundation
import HummingbirdWSClient
import Logging
import Mien
import MienCore
import NIOCore
import NIOWebSocket
import WSCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One simulated participant of `MienDev fleet`, through the load balancer as a page would go: consent, the
/// framing check (`FramingCheck`), the stimulus's socket with JPEG frames on its media time at the rate the server asks for, the end, completion.
///
/// A participant whose socket is cut (their replica killed) either stays away, or comes back a second later as the
/// page does by itself (`POST /resume` with their token, the stimulus again, through whichever replica the balancer
/// picks): `comesBack` decides, at the moment of the cut.
struct FleetParticipant: Sendable {
    /// The balancer's `host:port`.
    let address: String
    let study: String
    let stimulus: String
    let frames: [[UInt8]]
    /// The stimulus's length and the frames per second sent (until the server asks for fewer).
    let seconds: Double
    let fps: Double

    /// What the socket has heard (shared by its reading and sending tasks).
    private final class Heard: Sendable {
        let state = Locked<
            (ready: Bool, ended: Bool, rate: Double, error: String?, types: [String], last: ContinuousClock.Instant)
        >((false, false, 0, nil, [], .now))
    }

    /// - Parameters:
    ///   - streaming: told when frames start (true) and stop (false) on a socket.
    ///   - comesBack: asked when the socket is cut whether this participant comes back.
    func run(
        _ id: String, streaming: @escaping @Sendable (Bool) -> Void, comesBack: @escaping @Sendable () -> Bool
    ) async -> Outcome {
        let started = ContinuousClock.now
        var outcome = Outcome(participant: id, end: .failed, sent: 0, seconds: 0, detail: "")
        do {
            let admission = try await post("sessions", body: #"{"agreed":true,"participant":"\#(id)"}"#)
            guard let token = admission["token"] as? String else {
                outcome.detail = "consent refused: \(admission)"
                return finished(outcome, since: started)
            }
            outcome.group = admission["group"] as? String
            // The framing check the server judges (a stimulus needs it); tried again, as the page does, when a
            // socket is cut under it.
            // Six tries, 2 s apart: on 2 loaded cores (CI) a burst of 40 framing checks through three debug servers
            // left pages whose three tries had all timed out (the real page goes on trying for minutes).
            for tries in 1...6 {
                do {
                    try await FramingCheck.pass(
                        url: "ws://\(address)/studies/\(study)/live?session=\(token)", frames: frames)
                    break
                } catch  where tries < 6 {
                    try await Task.sleep(for: .seconds(2))
                    // As the page does after a cut socket: it comes back (`resume`) before the check again, so a
                    // session its killed replica's participants were marked incomplete in goes on (under load the
                    // kill came while three were still framing, and their next try met `sessionEnded`).
                    _ = await ask("resume", token: token)
                }
            }
            // The stimulus's socket, tried again as the page does when it cannot connect (a busy machine).
            var first: (End, Int, String, Bool)?
            for tries in 1...4 where first == nil {
                do {
                    first = try await watch(token: token, streaming: streaming)
                } catch  where tries < 4 {
                    try await Task.sleep(for: .seconds(2))
                }
            }
            guard let first else { throw MienError(.internalFailure, "the stimulus's socket did not open") }
            var (end, sent, detail, ready) = first
            // A page whose socket closed before it was ready has shown nothing but "connecting": it comes back, as
            // the page does after every cut (three here).
            var comebacks = 0
            while end == .cut, comebacks < 3, !ready || comesBack() {
                comebacks += 1
                outcome.cameBack = true
                try await Task.sleep(for: .seconds(1))
                // As the page does, `resume` is asked again unless the session cannot go on (401, cannotTakePart):
                // while the server cannot save (a database outage) or no replica answers, with the page's back-off
                // (2 s growing to 15 s), for 90 s here.
                var resumed: [String: Any] = [:]
                let asked = ContinuousClock.now
                var delay = 2.0
                while true {
                    let (answer, code) = await ask("resume", token: token)
                    resumed = answer
                    guard resumed["token"] == nil, code != "cannotTakePart", code != "unauthorized",
                        ContinuousClock.now - asked < .seconds(90)
                    else { break }
                    try await Task.sleep(for: .seconds(delay))
                    delay = min(delay * 1.5, 15)
                }
                guard resumed["token"] != nil else {
                    outcome.detail = "could not come back: \(resumed)"
                    return finished(outcome, since: started)
                }
                if resumed["state"] as? String == "complete" {
                    (end, detail) = (.complete, "came back complete")
                    break
                }
                // As the page does, it tries the socket again when it cannot connect (a busy machine).
                var tries = 0
                while true {
                    tries += 1
                    do {
                        let again = try await watch(token: token, streaming: streaming)
                        (end, sent, detail, ready) = (again.0, sent + again.1, "came back: " + again.2, again.3)
                        break
                    } catch  where tries < 3 {
                        try await Task.sleep(for: .seconds(1))
                    }
                }
            }
            outcome.sent = sent
            outcome.detail = detail
            outcome.end = end
            guard end == .complete else { return finished(outcome, since: started) }
            // As the page does, completion is asked again while no server answers (the balancer's 503) or none can
            // save, for 90 s.
            var completion: [String: Any] = [:]
            let asked = ContinuousClock.now
            while true {
                let (answer, code) = await ask("complete", token: token)
                completion = answer
                let retry = code == "notSaved" || code == "unreachable" || completion["body"] != nil
                guard completion["code"] == nil, retry, ContinuousClock.now - asked < .seconds(90) else { break }
                try await Task.sleep(for: .seconds(2))
            }
            guard let code = completion["code"] as? String else {
                outcome.end = .failed
                outcome.detail = "completion refused: \(completion)"
                return finished(outcome, since: started)
            }
            outcome.code = code
        } catch {
            outcome.end = .failed
            outcome.detail = "\(error)"
        }
        return finished(outcome, since: started)
    }

    private func finished(_ outcome: Outcome, since started: ContinuousClock.Instant) -> Outcome {
        var outcome = outcome
        outcome.seconds = (ContinuousClock.now - started).milliseconds / 1000
        return outcome
    }

    /// The stimulus's socket: frames until the media time reaches `seconds`, then the end.
    /// - Returns: `.complete` when the server said the stimulus ended; `.cut` when the socket closed first, saying
    ///   nothing; the frames sent; what went wrong; whether the socket was ready.
    private func watch(
        token: String, streaming: @escaping @Sendable (Bool) -> Void
    ) async throws -> (End, Int, String, Bool) {
        let heard = Heard()
        heard.state.withLock { $0.rate = fps }
        let sent = Locked(0)
        let opened = Locked(false)
        do {
            try await connect(token: token, heard: heard, sent: sent, opened: opened, streaming: streaming)
        } catch  where opened.withLock({ $0 }) {
            // The socket was open, so what it heard decides: the client library can throw as it closes (seen behind
            // nginx after "ended"), and a page that heard "ended" never opens the stimulus again.
        }
        let (ended, error, ready, types) = heard.state.withLock { ($0.ended, $0.error, $0.ready, $0.types) }
        let count = sent.withLock { $0 }
        if ended { return (.complete, count, "", ready) }
        if error == "studyFull" { return (.full, count, "studyFull", ready) }
        if error == "closed" || error == nil {
            return (.cut, count, "socket closed after \(count) frames (heard \(types.joined(separator: ", ")))", ready)
        }
        return (.failed, count, "socket: \(error ?? "closed") (heard \(types.joined(separator: ", ")))", ready)
    }

    /// Connects the stimulus's socket and runs it: what it hears in `heard`, frames sent in `sent`, `opened` once
    /// the upgrade succeeded.
    /// - Throws: when the socket cannot be opened, or the client library fails.
    private func connect(
        token: String, heard: Heard, sent: Locked<Int>, opened: Locked<Bool>,
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
                            heard.state.withLock { $0.error = "not ready, and nothing heard for 60 s" }
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

    /// A participant route's answer and its error's code; a request that fails is the code `unreachable`.
    private func ask(_ route: String, token: String) async -> ([String: Any], String?) {
        let answer: [String: Any]
        do {
            answer = try await post(route, body: "{}", token: token)
        } catch {
            answer = ["error": ["code": "unreachable", "message": "\(error)"]]
        }
        return (answer, (answer["error"] as? [String: Any])?["code"] as? String)
    }

    /// A participant route's JSON answer (an error's body too).
    private func post(_ route: String, body: String, token: String? = nil) async throws -> [String: Any] {
        guard let url = URL(string: "http://\(address)/studies/\(study)/\(route)") else {
            throw MienError(.invalidArgument, "no URL for \(address)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any])
            ?? ["body": String(decoding: data, as: UTF8.self)]
    }
}
