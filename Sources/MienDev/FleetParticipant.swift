import Foundation
import Mien
import MienCore

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
    /// The balancer's `host:port` (a replica's, for a page sent back through it).
    var address: String
    let study: String
    let stimulus: String
    let frames: [[UInt8]]
    /// The stimulus's length and the frames per second sent (until the server asks for fewer).
    let seconds: Double
    let fps: Double
    /// What fleet-faults asks of participants while they watch (a second tab, a return through another server).
    var directions: FleetDirections? = nil

    /// What the socket has heard (shared by its reading and sending tasks).
    final class Heard: Sendable {
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
                    first = try await secondTab(id, after: try await watch(id, token: token, streaming: streaming))
                    // As the page does: a framing check the server did not see pass (it could not save it: a
                    // database outage) is made again before the stimulus.
                    if let refused = first, refused.0 == .failed, refused.2.hasPrefix("socket: notFramed"), tries < 4 {
                        first = nil
                        try await FramingCheck.pass(
                            url: "ws://\(address)/studies/\(study)/live?session=\(token)", frames: frames)
                    }
                } catch  where tries < 4 {
                    try await Task.sleep(for: .seconds(2))
                }
            }
            guard let first else { throw MienError(.internalFailure, "the stimulus's socket did not open") }
            var (end, sent, detail, ready) = first
            if detail.hasPrefix(Self.silent) { outcome.silent += 1 }
            // A page whose socket closed before it was ready has shown nothing but "connecting": it comes back, as
            // the page does after every cut (six times here, 1 s growing by half each time: about 20 s, a socket
            // holder's lease, for a page that met `alreadyStreaming`).
            var comebacks = 0
            while end == .cut, comebacks < 6, !ready || comesBack() {
                try await Task.sleep(for: .seconds(pow(1.5, Double(comebacks))))
                comebacks += 1
                outcome.cameBack = true
                // As the page does, `resume` is asked again unless the session cannot go on (401, cannotTakePart):
                // while the server cannot save (a database outage) or no replica answers, with the page's back-off
                // (2 s growing to 15 s), for 90 s here.
                // Through the balancer, or through the server fleet-faults sent this page to.
                let page =
                    directions?.takeReturn(id).map { other -> FleetParticipant in
                        var copy = self
                        copy.address = other
                        return copy
                    } ?? self
                var resumed: [String: Any] = [:]
                let asked = ContinuousClock.now
                var delay = 2.0
                while true {
                    let (answer, code) = await page.ask("resume", token: token)
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
                // As the page does: a stimulus watched and measured enough (a second tab's, or one whose `ended` was
                // lost with the connection) is not watched again; it goes on to completion.
                if (resumed["watched"] as? [String])?.contains(stimulus) == true {
                    (end, detail) = (.complete, "came back: watched already")
                    break
                }
                // As the page does, it tries the socket again when it cannot connect (a busy machine).
                var tries = 0
                var framedAgain = false
                while true {
                    tries += 1
                    do {
                        let again = try await secondTab(
                            id, after: try await page.watch(id, token: token, streaming: streaming))
                        (end, sent, detail, ready) = (again.0, sent + again.1, "came back: " + again.2, again.3)
                        if again.2.hasPrefix(Self.silent) { outcome.silent += 1 }
                        // As the page does: a stimulus refused for want of a framing check the server saw (its
                        // framing socket was cut) is preceded by one.
                        if end == .failed, again.2.hasPrefix("socket: notFramed"), !framedAgain {
                            framedAgain = true
                            try await FramingCheck.pass(
                                url: "ws://\(page.address)/studies/\(study)/live?session=\(token)", frames: frames)
                            continue
                        }
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

    /// What a participant met once their second tab, if fleet-faults opened one, has finished too: the first tab
    /// was told `replaced`, so what the second met is where they are.
    private func secondTab(
        _ id: String, after first: (End, Int, String, Bool)
    ) async throws -> (End, Int, String, Bool) {
        guard let tab = directions?.takeTab(id) else { return first }
        let second = try await tab.value
        return (second.end, first.1 + second.sent, "first tab: \(first.2); second tab: \(second.detail)", second.ready)
    }

    private func finished(_ outcome: Outcome, since started: ContinuousClock.Instant) -> Outcome {
        var outcome = outcome
        outcome.seconds = (ContinuousClock.now - started).milliseconds / 1000
        return outcome
    }

    /// A participant route's answer and its error's code; a request that fails is the code `unreachable`.
    func ask(_ route: String, token: String) async -> ([String: Any], String?) {
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
