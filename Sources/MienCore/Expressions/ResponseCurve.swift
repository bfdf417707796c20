/// A clamped linear map from a raw measurement to an activation 0...1: `neutral` and anything on its
/// far side give 0, `full` and beyond give 1.
///
/// `full` may be below `neutral` for measures that shrink as the expression grows (an eye's opening as
/// it closes).
package struct ResponseCurve: Sendable, Equatable {
    /// The raw value of a relaxed face.
    package var neutral: Double
    /// The raw value of a fully formed expression.
    package var full: Double

    package init(neutral: Double, full: Double) {
        precondition(neutral != full, "a response curve needs two different points")
        self.neutral = neutral
        self.full = full
    }

    /// The activation of `value`, 0...1.
    package func callAsFunction(_ value: Double) -> Double {
        let t = (value - neutral) / (full - neutral)
        return t.isNaN ? 0 : min(1, max(0, t))
    }
}
