import RealModule

/// Smooths a score over stream time: a first-order low-pass filter with a time constant, in seconds
/// (EnableX FaceAI's per-module `smoothness`, made a number with a unit).
///
/// Each frame moves the smoothed value toward the new score by `1 − e^(−Δt / timeConstant)` of the way,
/// where Δt is the time since the previous frame, so the result is the same at any frame rate or rate cap:
/// after a step, the smoothed value has covered 63 % of it `timeConstant` seconds later, 95 % after three.
/// Off by default everywhere: raw scores stay raw unless smoothing is asked for.
package struct ScoreSmoother: Sendable, Equatable, Codable {
    /// Seconds for the smoothed value to cover 63 % of a step.
    package let timeConstant: Double
    private var value: Double?
    private var lastTime: Double?

    /// - Throws: `MienError.Code.invalidOptions` unless `timeConstant` is a positive number of seconds.
    package init(timeConstant: Double) throws {
        guard timeConstant > 0, timeConstant.isFinite else {
            throw MienError(.invalidOptions, "a smoothing time constant must be a positive number of seconds")
        }
        self.timeConstant = timeConstant
    }

    /// The smoothed score after `score` at `time` (seconds); nil when the frame has no score.
    ///
    /// A frame without a score leaves the smoothed value as it was (the next score is weighed by the whole
    /// time since the last one). A frame not after the previous one returns the current value unchanged.
    package mutating func smooth(_ score: Double?, at time: Double) -> Double? {
        guard let score else { return nil }
        guard let previous = value, let lastTime else {
            value = score
            self.lastTime = time
            return score
        }
        guard time > lastTime else { return previous }
        let weight = 1 - Double.exp(-(time - lastTime) / timeConstant)
        let smoothed = previous + weight * (score - previous)
        value = smoothed
        self.lastTime = time
        return smoothed
    }

    /// Forgets the history (a new face, or the same face after a cut).
    package mutating func reset() {
        value = nil
        lastTime = nil
    }
}
