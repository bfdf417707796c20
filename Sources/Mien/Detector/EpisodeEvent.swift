public import MienCore

/// An episode of one face's metric starting or finishing (`EpisodeTracker`), as results carry it.
///
/// Metrics are named by their place in a face's JSON: `expressions.smile`, `emoji.smirk`, `emotions.joy`,
/// `engagement`, `valence`, and the blink events `blink`, `winkLeft` and `winkRight` (the person's eye). Times are
/// seconds on the stream's clock; values are the metric's scale (0...100; valence −100...100).
public struct EpisodeEvent: Sendable, Equatable, Codable {
    /// Whether the episode started or finished on this frame.
    public enum Change: String, Sendable, Codable {
        /// It has lasted its minimum duration (`onset` says when it began); `offset` and `ending` are nil.
        case started
        /// It is over: `offset` and `ending` say when and why.
        case finished
    }

    public var faceId: Int
    public var metric: String
    public var change: Change
    /// When the metric reached the on threshold.
    public var onset: Double
    /// When it was highest (so far, for `started`).
    public var apex: Double
    /// Its highest value (so far).
    public var apexValue: Double
    /// When it ended (`finished` only).
    public var offset: Double?
    /// Why it ended (`finished` only).
    public var ending: Episode.Ending?

    public init(
        faceId: Int, metric: String, change: Change, onset: Double, apex: Double, apexValue: Double,
        offset: Double? = nil, ending: Episode.Ending? = nil
    ) {
        self.faceId = faceId
        self.metric = metric
        self.change = change
        self.onset = onset
        self.apex = apex
        self.apexValue = apexValue
        self.offset = offset
        self.ending = ending
    }

    /// A finished episode.
    public init(faceId: Int, metric: String, finished episode: Episode) {
        self.init(
            faceId: faceId, metric: metric, change: .finished, onset: episode.onset, apex: episode.apex,
            apexValue: episode.apexValue, offset: episode.offset, ending: episode.ending)
    }

    /// The finished episode (nil for `started`).
    public var episode: Episode? {
        guard let offset, let ending else { return nil }
        return Episode(onset: onset, apex: apex, apexValue: apexValue, offset: offset, ending: ending)
    }

    /// From onset to offset, seconds (nil for `started`).
    public var duration: Double? { offset.map { $0 - onset } }
}
