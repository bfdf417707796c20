/// A person's neutral baseline carried from one run to another: learnt at a study's framing check and started from
/// by each of their stimuli's runs (issue 95 item 1), so a stimulus is read against the person's resting face from its
/// first frame instead of settling over its first second.
///
/// Kept with the participant's session (a file, or a database row), so it is compact: each score slot's histogram as
/// its non-empty bins only, weights to 3 decimals (a framing check of a few seconds fills a few bins per slot).
extension NeutralBaseline {
    package struct Carried: Sendable, Codable, Equatable {
        /// Seconds of reliable observation the baseline was learnt from.
        package var observed: Double
        /// Per score slot (as a decimal string), its histogram's non-empty bins: bin (0...100, as a decimal string)
        /// to weight.
        package var bins: [String: [String: Double]]

        package init(observed: Double, bins: [String: [String: Double]]) {
            self.observed = observed
            self.bins = bins
        }
    }

    /// This baseline, carried.
    package var carried: Carried {
        var bins: [String: [String: Double]] = [:]
        for (slot, histogram) in histograms {
            var kept: [String: Double] = [:]
            for (bin, weight) in histogram.enumerated() where weight >= 0.0005 {
                kept[String(bin)] = (weight * 1000).rounded() / 1000
            }
            if !kept.isEmpty { bins[String(slot)] = kept }
        }
        return Carried(observed: observedSeconds, bins: bins)
    }

    /// A baseline that goes on from `carried` with `options` (the receiving run's).
    ///
    /// Its clock starts again at the next observation: the time between the two runs is neither forgotten nor
    /// credited. Slots, bins and weights that cannot be this type's (a session file edited by hand) are left out.
    package init(options: BaselineOptions, carried: Carried) {
        self.init(options: options)
        let slots = Part.allCases.count * FacialExpression.allCases.count
        for (key, kept) in carried.bins {
            guard let slot = Int(key), (0..<slots).contains(slot) else { continue }
            var histogram = Array(repeating: 0.0, count: Self.bins)
            for (binKey, weight) in kept {
                guard let bin = Int(binKey), (0..<Self.bins).contains(bin), weight.isFinite, weight > 0 else {
                    continue
                }
                histogram[bin] = weight
            }
            if histogram.contains(where: { $0 > 0 }) { histograms[slot] = histogram }
        }
        observedSeconds = carried.observed.isFinite ? max(0, carried.observed) : 0
    }
}
