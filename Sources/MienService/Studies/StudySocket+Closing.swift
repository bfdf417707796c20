import HummingbirdWebSocket
import Mien
import NIOWebSocket
import Prometheus

/// How a participant socket ends: what the page is told, and the close code it goes with; the gauges it moves.
extension StudySocket {
    /// Says why the server ends the socket, then closes it with the matching code.
    func close(_ end: CollectedStudy.SocketEnd?) async throws {
        let (text, code, reason): (String?, WebSocketErrorCode, String) =
            switch end {
            case .serverRestarting: (#"{"type":"restarting"}"#, .unknown(1012), "restarting")
            case .replaced: (#"{"type":"replaced"}"#, .unknown(4001), "another page")
            case .erased:
                (failure("erased", "your data was deleted at the researcher's request"), .policyViolation, "erased")
            case .idle:
                (
                    failure(
                        "idle",
                        "no camera frame for \(Int(saturating: options.idleSeconds, rounding: .towardZero)) s; closing"),
                    .goingAway, "idle"
                )
            case .tooFewFrames(let short, let window):
                (
                    failure(
                        "idle",
                        "camera frames came too seldom (\(short.frames) in the last \(window.components.seconds) s; \(short.needed) needed, a quarter of the \(LiveMessage.number(short.rate)) a second asked); closing so the place goes to someone waiting"
                    ), .goingAway, "too few frames"
                )
            case .framingOver:
                (
                    failure(
                        "framingOver",
                        "the framing check's time is over; choose Try again to check your position once more"),
                    .goingAway, "framing check over"
                )
            case .notSaved:
                (
                    failure(
                        "notSaved",
                        "the study's server cannot save your results at the moment, so this video has stopped; please try again in a few minutes"
                    ), .unexpectedServerError, "not saved"
                )
            case .ended, .left, nil: (nil, .normalClosure, "")
            }
        if let text { try await outbound.write(.text(text)) }
        try await outbound.close(code, reason: reason)
    }

    /// A socket refused before it started: the error in the one error shape, then a close (1008; 1013 for a full
    /// study or an unavailable server, which may change).
    func refuse(_ error: any Error) async throws {
        let body: ErrorBody =
            if let refusal = ServiceRefusal.from(error) {
                ErrorBody(code: refusal.code, message: refusal.message)
            } else {
                (error as? MienError).map(ErrorBody.init) ?? ErrorBody(code: "internalFailure", message: "\(error)")
            }
        try await outbound.write(.text(LiveMessage.failure(body).text()))
        let later = ["notSaved", "studyFull"].contains(body.error.code)
        try await outbound.close(later ? .unknown(1013) : .policyViolation, reason: body.error.code)
    }

    func failure(_ code: String, _ message: String) -> String {
        LiveMessage.failure(ErrorBody(code: code, message: message)).text()
    }

    func updateGauges() {
        let load = desk.budget.load
        metrics.studySockets.set(Double(load.open))
        metrics.studyWaiting.set(Double(load.waiting))
        metrics.studyFrameBudget.set(load.budget)
    }
}
