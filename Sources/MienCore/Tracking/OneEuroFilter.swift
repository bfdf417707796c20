/// The One-Euro filter (Casiez, Roussel & Vogel, CHI 2012): a low-pass filter whose cutoff rises with
/// the signal's speed, so a still face does not jitter and a moving one is not dragged behind.
///
/// cutoff = `minimumCutoff` + `beta` · |smoothed speed|; the speed itself is smoothed with
/// `derivativeCutoff`. Frequencies are Hz, time is seconds, the value's unit is the caller's.
package struct OneEuroFilter: Sendable, Equatable, Codable {
    /// Parameters, all > 0 (`beta` >= 0).
    package struct Parameters: Sendable, Equatable, Codable {
        /// Cutoff at rest, Hz.
        ///
        /// Lower = steadier when still.
        package var minimumCutoff: Double
        /// How fast the cutoff rises with speed.
        ///
        /// Higher = less lag on fast motion.
        package var beta: Double
        /// Cutoff for the speed estimate, Hz.
        package var derivativeCutoff: Double

        package init(minimumCutoff: Double, beta: Double, derivativeCutoff: Double) {
            self.minimumCutoff = minimumCutoff
            self.beta = beta
            self.derivativeCutoff = derivativeCutoff
        }

        /// MediaPipe's face-landmark smoothing (`min_cutoff: 0.05, beta: 80, derivate_cutoff: 1`),
        /// for values measured in face sizes (see `FaceTracker`).
        package static let mediaPipeFaceLandmarks = Parameters(minimumCutoff: 0.05, beta: 80, derivativeCutoff: 1)
    }

    package let parameters: Parameters
    private var previousValue: Double?
    private var previousDerivative = 0.0
    private var previousTime: Double?

    package init(parameters: Parameters) { self.parameters = parameters }

    /// Filters `value` observed at `time` (seconds).
    ///
    /// The first value passes through unchanged; a time
    /// that does not advance returns the previous output.
    /// - Parameter speedScale: multiplies the speed before it raises the cutoff, so that `beta` can be
    ///   stated in other units than the value's (MediaPipe's `value_scale`: 1 / face size in pixels
    ///   makes speed "face sizes per second" while the value stays in pixels).
    package mutating func filter(_ value: Double, at time: Double, speedScale: Double = 1) -> Double {
        guard let lastValue = previousValue, let lastTime = previousTime else {
            previousValue = value
            previousTime = time
            return value
        }
        let elapsed = time - lastTime
        guard elapsed > 0 else { return lastValue }
        let derivative = (value - lastValue) / elapsed * speedScale
        let smoothedDerivative = Self.blend(
            previousDerivative, derivative, alpha: Self.alpha(cutoff: parameters.derivativeCutoff, elapsed: elapsed))
        let cutoff = parameters.minimumCutoff + parameters.beta * abs(smoothedDerivative)
        let output = Self.blend(lastValue, value, alpha: Self.alpha(cutoff: cutoff, elapsed: elapsed))
        previousValue = output
        previousDerivative = smoothedDerivative
        previousTime = time
        return output
    }

    private static func alpha(cutoff: Double, elapsed: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / elapsed)
    }

    private static func blend(_ old: Double, _ new: Double, alpha: Double) -> Double { old + alpha * (new - old) }
}
