/// How each tracked face learns its own neutral face (`NeutralBaseline`).
package struct BaselineOptions: Sendable, Equatable, Codable {
    /// The low quantile of a person's own recent scores taken as their resting level.
    ///
    /// Default 0.2:
    /// people rest far more than they emote, yet a fifth of the time may be expressive without moving
    /// the estimate.
    package var quantile: Double
    /// Seconds after which an observation weighs 1/e as much (exponential forgetting).
    ///
    /// Default 60: slow
    /// enough to ignore a long laugh, fast enough to follow a change of lighting or posture.
    package var memory: Double
    /// Seconds of a face's reliable frames before its baseline has settled; until then its frames are
    /// flagged `settling` (the baseline applies in full from the first frame either way).
    ///
    /// Default 1: the held-out videos' own-frames estimate reached its settled error within 1 s (see
    /// `NeutralBaseline`).
    package var warmUp: Double
    /// The most (on the 0...100 scale) the baseline may take off a score.
    ///
    /// Default 40: removes a resting
    /// frown or a habitual half-smile, yet a person who smiles through a whole video keeps a smile score.
    package var maximumOffset: Double

    /// - Throws: `.invalidArgument` for a quantile outside 0..<1, a memory or warm-up that is not
    ///   positive, or an offset outside 0..<100.
    package init(quantile: Double = 0.2, memory: Double = 60, warmUp: Double = 1, maximumOffset: Double = 40) throws {
        // Comparisons, so NaN fails every one of them.
        guard quantile >= 0, quantile < 1 else { throw MienError(.invalidOptions, "baseline quantile must be 0..<1") }
        guard memory > 0, warmUp > 0, warmUp.isFinite else {
            throw MienError(.invalidOptions, "baseline memory and warm-up must be positive seconds")
        }
        guard maximumOffset >= 0, maximumOffset < 100 else {
            throw MienError(.invalidOptions, "baseline maximum offset must be 0..<100")
        }
        self.quantile = quantile
        self.memory = memory
        self.warmUp = warmUp
        self.maximumOffset = maximumOffset
    }
}
