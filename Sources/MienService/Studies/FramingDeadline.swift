/// When a framing check's socket is closed whatever it sends (issue 94: a text message every 30 s kept a framing
/// socket open for good, each holding a detector run's memory).
///
/// A try lasts `timeoutSeconds` on the page (60 s by default), after which the page closes it and offers another;
/// the server allows 15 s more. Once the server has seen the check pass, the participant may take their time before
/// Start watching, 5 minutes at most (as long as a place toward a target is held for them: `StudyLedger.framedHold`),
/// the idle limit applying meanwhile (frames must keep coming).
struct FramingDeadline: Sendable {
    let opened: ContinuousClock.Instant
    /// The page's limit for one try, seconds (`CollectionSettings.Framing.timeoutSeconds`).
    let timeoutSeconds: Double

    /// Seconds past the page's own limit a try is allowed on the server.
    static let slack = 15.0
    /// How long a socket whose check passed may stay open before Start watching.
    static let afterPass = Duration.seconds(5 * 60)

    /// Whether the socket's time is over at `now`, the check having passed at `passedAt` (nil: not yet).
    func expired(at now: ContinuousClock.Instant, passedAt: ContinuousClock.Instant?) -> Bool {
        if let passedAt { return now - passedAt > Self.afterPass }
        return now - opened > .seconds(timeoutSeconds + Self.slack)
    }
}
