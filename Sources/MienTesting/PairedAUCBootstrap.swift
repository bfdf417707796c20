/// How sure a difference between two ROC-AUCs measured on the same pictures is: a paired bootstrap that
/// resamples people, not pictures.
///
/// Issue 39 asks each expression to reach at least the AUC of MediaPipe's blendshape for its unit. Both
/// scores read the same pictures, so the difference is resampled as a pair, and a person's pictures are
/// drawn together (JAFFE has 10 women with 2 to 4 pictures each): resampling pictures alone would make
/// one person's look count as many independent faces.
public struct PairedAUCBootstrap: Sendable {
    /// One picture: who it shows (an empty person stands alone), whether it is a positive, and the two
    /// scores compared.
    public struct Row: Sendable {
        public var person: String
        public var positive: Bool
        public var first: Double
        public var second: Double

        public init(person: String, positive: Bool, first: Double, second: Double) {
            self.person = person
            self.positive = positive
            self.first = first
            self.second = second
        }
    }

    /// The difference AUC(first) - AUC(second) on the rows as they are, and its central interval.
    public struct Interval: Sendable, Equatable {
        public var difference: Double
        public var low: Double
        public var high: Double

        /// Whether the interval lies wholly below 0: the first score is behind beyond this data's noise.
        public var behind: Bool { high < 0 }
    }

    /// Bootstrap draws.
    public var resamples: Int
    /// The interval's coverage, 0...1.
    public var coverage: Double
    /// Fixed, so `make eval` prints the same interval on the same data.
    public var seed: UInt64

    public init(resamples: Int = 1000, coverage: Double = 0.95, seed: UInt64 = 39) {
        self.resamples = max(1, resamples)
        self.coverage = min(max(coverage, 0), 1)
        self.seed = seed
    }

    /// The interval, or nil when the rows lack positives or negatives.
    public func interval(_ rows: [Row]) -> Interval? {
        guard let difference = Self.difference(rows) else { return nil }
        var groups: [String: [Int]] = [:]
        var alone: [[Int]] = []
        for (index, row) in rows.enumerated() {
            if row.person.isEmpty { alone.append([index]) } else { groups[row.person, default: []].append(index) }
        }
        let clusters = groups.keys.sorted().compactMap { groups[$0] } + alone
        var generator = SeededGenerator(seed: seed)
        var draws: [Double] = []
        draws.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var sample: [Row] = []
            sample.reserveCapacity(rows.count)
            for _ in 0..<clusters.count {
                for index in clusters[Int.random(in: 0..<clusters.count, using: &generator)] {
                    sample.append(rows[index])
                }
            }
            // A draw with one side empty has no AUC; it is left out (rare unless positives are few).
            if let value = Self.difference(sample) { draws.append(value) }
        }
        guard !draws.isEmpty else { return nil }
        draws.sort()
        let tail = (1 - coverage) / 2
        func quantile(_ q: Double) -> Double {
            draws[min(max(Int((q * Double(draws.count - 1)).rounded()), 0), draws.count - 1)]
        }
        return Interval(difference: difference, low: quantile(tail), high: quantile(1 - tail))
    }

    private static func difference(_ rows: [Row]) -> Double? {
        var firstPositives: [Double] = []
        var firstNegatives: [Double] = []
        var secondPositives: [Double] = []
        var secondNegatives: [Double] = []
        for row in rows {
            if row.positive {
                firstPositives.append(row.first)
                secondPositives.append(row.second)
            } else {
                firstNegatives.append(row.first)
                secondNegatives.append(row.second)
            }
        }
        guard !firstPositives.isEmpty, !firstNegatives.isEmpty else { return nil }
        return ROC.auc(positives: firstPositives, negatives: firstNegatives)
            - ROC.auc(positives: secondPositives, negatives: secondNegatives)
    }
}
