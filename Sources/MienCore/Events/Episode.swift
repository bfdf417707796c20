/// One episode of a score: when it started, peaked and ended, and why it ended.
///
/// Times are seconds on the stream's clock; values are the score's (0...100).
public struct Episode: Sendable, Equatable, Codable {
    /// Why an episode ended.
    public enum Ending: String, Sendable, Codable {
        /// The score fell below the off threshold (and did not come back within the merge gap).
        case fell
        /// The face was lost.
        case lost
        /// The shot changed (a cut ends every face).
        case cut
        /// The input ended while the episode was on.
        case ended
    }

    /// When the score reached the on threshold.
    public var onset: Double
    /// When the score was highest (the first time, if it was highest more than once).
    public var apex: Double
    /// The highest score.
    public var apexValue: Double
    /// When the score fell below the off threshold, or the time of the loss, cut or end.
    public var offset: Double
    /// Why it ended.
    public var ending: Ending

    public init(onset: Double, apex: Double, apexValue: Double, offset: Double, ending: Ending) {
        self.onset = onset
        self.apex = apex
        self.apexValue = apexValue
        self.offset = offset
        self.ending = ending
    }

    /// From onset to offset, seconds.
    public var duration: Double { offset - onset }
}
