/// What one simulated participant met.
extension FleetParticipant {
    /// How a participant's visit ended, as they met it.
    enum End: String, Sendable {
        /// Watched to the end and given a completion code.
        case complete
        /// The socket closed under them mid-stimulus (the replica serving it was killed), and they stayed away.
        case cut
        /// Their stimulus socket was refused: the study was full.
        case full
        /// Anything else (a refusal, an error), in `detail`.
        case failed
    }

    struct Outcome: Sendable {
        var participant: String
        var end: End
        var code: String?
        var group: String?
        /// Frames sent on the stimulus's socket.
        var sent: Int
        /// From consent to the end, seconds.
        var seconds: Double
        var detail: String
        /// Cut mid-stimulus, then came back (their end is that of the second attempt).
        var cameBack = false
        /// Sockets of theirs silent for a minute before they were ready (each closed, and come back from).
        var silent = 0
    }
}
