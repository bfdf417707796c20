/// Small order statistics for benchmark timings.
enum Statistics {
    /// The q-quantile (0...1) of `values` by nearest rank; 0 for an empty list.
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((q * Double(sorted.count - 1)).rounded())
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }

    /// The least-squares slope of `y` on `x`; 0 when `x` does not vary.
    static func slope(_ y: [Double], on x: [Double]) -> Double {
        let (mx, my) = (mean(x), mean(y))
        let sxx = x.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        let sxy = zip(x, y).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
        return sxx > 0 ? sxy / sxx : 0
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) * 1e-15
    }
}

/// Rounds for display and JSON (benchmarks are not precise past this).
func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
