import Foundation

/// Raking (iterative proportional fitting) of one weight per person to a population's margins (issue 98 item 5).
///
/// As R's `survey::rake` and Python's `ipfn` make them: each pass scales the weights of every category of each
/// dimension in turn so that its share of the total is the target's; with a cap, weights above it (times the mean
/// weight, 1) are cut to it after each pass and the raking goes on, so the margins are met with no weight above it
/// (trimming within raking). `make statistics-check` compares the uncapped weights with `ipfn`'s.
package enum Raking {
    package struct Outcome: Sendable, Equatable {
        /// One per person, averaging 1.
        package var weights: [Double]
        package var iterations: Int
        /// Whether the margins were met within the tolerance (and the cap held).
        package var converged: Bool
        /// The largest distance of a category's weighted share from its target at the end.
        package var largestGap: Double
    }

    /// Kish's effective sample size of `weights`: (Σw)² / Σw².
    package static func effectiveSize(_ weights: [Double]) -> Double {
        let total = weights.reduce(0, +)
        let squares = weights.reduce(0) { $0 + $1 * $1 }
        return squares > 0 ? total * total / squares : 0
    }

    /// Rakes one weight per person to `targets`.
    /// - Parameters:
    ///   - categories: per dimension, each person's category (an index into that dimension's targets).
    ///   - targets: per dimension, each category's share of the population (summing to 1).
    ///   - cap: the largest weight allowed, as a multiple of the mean weight (1); nil: none.
    package static func rake(
        categories: [[Int]], targets: [[Double]], cap: Double?, tolerance: Double = 1e-10, maximumIterations: Int = 2000
    ) -> Outcome {
        let people = categories.first?.count ?? 0
        var weights = Array(repeating: 1.0, count: people)
        guard people > 0 else { return Outcome(weights: [], iterations: 0, converged: false, largestGap: 1) }
        let total = Double(people)
        func gap() -> Double {
            var largest = 0.0
            for (dimension, shares) in targets.enumerated() {
                var sums = Array(repeating: 0.0, count: shares.count)
                for (person, category) in categories[dimension].enumerated() { sums[category] += weights[person] }
                let sum = sums.reduce(0, +)
                for (category, share) in shares.enumerated() {
                    largest = max(largest, abs(sums[category] / sum - share))
                }
            }
            return largest
        }
        for iteration in 1...maximumIterations {
            for (dimension, shares) in targets.enumerated() {
                var sums = Array(repeating: 0.0, count: shares.count)
                for (person, category) in categories[dimension].enumerated() { sums[category] += weights[person] }
                for (person, category) in categories[dimension].enumerated() where sums[category] > 0 {
                    weights[person] *= shares[category] * total / sums[category]
                }
            }
            if let cap {
                let mean = weights.reduce(0, +) / total
                weights = weights.map { min($0, cap * mean) }
            }
            let mean = weights.reduce(0, +) / total
            let capHolds = cap.map { limit in weights.allSatisfy { $0 <= limit * mean * (1 + 1e-9) } } ?? true
            let largest = gap()
            if largest < tolerance && capHolds {
                return Outcome(
                    weights: weights.map { $0 / mean }, iterations: iteration, converged: true, largestGap: largest)
            }
        }
        let mean = weights.reduce(0, +) / total
        return Outcome(
            weights: weights.map { $0 / mean }, iterations: maximumIterations, converged: false, largestGap: gap())
    }
}
