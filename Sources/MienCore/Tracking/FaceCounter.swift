/// EnableX FaceAI's face-count stream: a smoothed number of faces that changes once, not on every
/// flicker, and says what it changed from.
///
/// `totalFaces` takes a new value only after the raw count (faces tracked on a frame) has held that
/// value for `settleTime` seconds, so a face missed on one frame or a false detection for a few frames
/// changes nothing. On the frame it changes, `totalFacesChangedFrom` holds the previous value.
public struct FaceCounter: Sendable, Codable {
    /// EnableX's tracker status.
    public enum Status: String, Sendable, Codable {
        /// No count has settled yet since the start (or a reset).
        case initializing = "INIT"
        /// Every face counted is being tracked.
        case trackingOK = "TRACK_OK"
        /// A face was lost within the last `settleTime` and the count has not settled again.
        case recovering = "RECOVERING"
    }

    /// One frame of the stream.
    public struct Update: Sendable, Equatable {
        public var status: Status
        /// The smoothed number of faces.
        public var totalFaces: Int
        /// The previous `totalFaces`, only on the frame where it changed.
        public var totalFacesChangedFrom: Int?
        /// Faces tracked on this very frame.
        public var rawCount: Int
    }

    /// Seconds a new raw count must hold before `totalFaces` follows.
    ///
    /// Default 0.5 s.
    public let settleTime: Double
    private var total: Int?
    private var candidate: Candidate?

    /// A raw count and when it began.
    private struct Candidate: Sendable, Codable {
        var count: Int
        var since: Double
    }
    private var lastLoss: Double?

    public init(settleTime: Double = 0.5) { self.settleTime = max(0, settleTime) }

    /// Feeds the faces tracked on the frame at `time` (seconds) and whether a face was lost on it.
    public mutating func update(count: Int, faceLost: Bool, at time: Double) -> Update {
        if faceLost { lastLoss = time }
        if candidate?.count != count { candidate = Candidate(count: count, since: time) }
        var changedFrom: Int?
        if let candidate, time - candidate.since >= settleTime || total == nil && settleTime == 0 {
            if total != candidate.count {
                changedFrom = total
                total = candidate.count
            }
        }
        let recovering = lastLoss.map { time - $0 < settleTime } ?? false
        let status: Status = total == nil ? .initializing : (recovering ? .recovering : .trackingOK)
        return Update(status: status, totalFaces: total ?? 0, totalFacesChangedFrom: changedFrom, rawCount: count)
    }

    /// Back to the initial state.
    public mutating func reset() { self = FaceCounter(settleTime: settleTime) }
}
