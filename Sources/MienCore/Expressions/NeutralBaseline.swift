import RealModule

/// One tracked person's neutral face: for every expression score (whole face and each side), a robust
/// running estimate of where that person rests, which is then taken off their scores.
///
/// The estimate is a low quantile (`BaselineOptions.quantile`) of a histogram of the person's own
/// scores with exponential forgetting, so brief expressions do not move it and it follows slow changes.
/// A score `s` with resting level `r` becomes `100 · (s − r) / (100 − r)` (0 at rest, 100 still 100).
/// Attention is left alone: it is not a facial movement.
///
/// The estimate applies in full from the person's first frame: their own levels, never population norms
/// blended in (issue 95: the blend made every still face "respond" over its first 3 s, as the norms faded
/// out). Until `warmUp` seconds of reliable frames have been seen the face is `settled == false`, and its
/// frames are flagged `settling`: a face that starts mid-expression reads that expression low until it
/// rests. Measured on three held-out videos against the baseline each settles to: the mean error of the
/// own-frames estimate was 1.8, 1.3 and 5.2 points over the first 0.5 s, 0.8–1.3 over the next, and at the
/// settled floor after 1 s (the blend: 3.8, 2.4 and 1.5 at first, 1.5–2.3 until 3 s).
package struct NeutralBaseline: Sendable, Codable {
    package let options: BaselineOptions
    /// Histograms of 0...100 in 1-point bins, per score slot, created on first use.
    var histograms: [Int: [Double]] = [:]
    var observedSeconds = 0.0
    private var lastTime: Double?

    /// Bins per histogram: one per integer score 0...100.
    static let bins = 101
    /// Longest gap credited to the warm-up between two observations: a face seen once a minute has not
    /// been watched for a minute.
    private static let longestCreditedGap = 1.0

    package init(options: BaselineOptions) { self.options = options }

    /// Seconds of reliable observation so far.
    package var observed: Double { observedSeconds }

    /// Whether `warmUp` seconds of reliable frames have been seen: before, the face's frames are `settling`.
    package var settled: Bool { observedSeconds >= options.warmUp }

    /// Learns from the (population-normed) scores of a reliable frame at `time` seconds.
    package mutating func observe(_ expressions: Expressions, at time: Double) {
        let gap = lastTime.map { max(0, time - $0) } ?? 0
        lastTime = time
        observedSeconds += min(gap, Self.longestCreditedGap)
        let decay = Double.exp(-gap / options.memory)
        for key in histograms.keys { histograms[key] = histograms[key]?.map { $0 * decay } }
        forEachSlot(of: expressions) { slot, value in
            var histogram = histograms[slot] ?? Array(repeating: 0, count: Self.bins)
            histogram[Int(min(100, max(0, value)).rounded())] += 1
            histograms[slot] = histogram
        }
    }

    /// Which scores of an `Expressions` a level belongs to.
    package enum Part: Int, CaseIterable, Sendable {
        case whole, left, right
    }

    /// The resting level (0...`maximumOffset`) subtracted from `expression` on `part` of the face.
    package func offset(_ expression: FacialExpression, part: Part = .whole) -> Double {
        guard expression != .attention, let histogram = histograms[Self.slot(expression, part: part)] else {
            return 0
        }
        let total = histogram.reduce(0, +)
        guard total > 0 else { return 0 }
        var cumulative = 0.0
        var level = 0.0
        for (bin, weight) in histogram.enumerated() {
            cumulative += weight
            if cumulative >= options.quantile * total {
                level = Double(bin)
                break
            }
        }
        return min(level, options.maximumOffset)
    }

    /// `expressions` with this person's resting levels taken off.
    package func apply(to expressions: Expressions) -> Expressions {
        var result = expressions
        for part in Part.allCases {
            let scores = Self.scores(part, of: expressions)
            var adjusted = scores
            for (key, value) in scores.present {
                let rest = offset(key, part: part)
                adjusted[key] = rest > 0 ? (max(0, value - rest) * 100 / (100 - rest)).rounded(toPlaces: 2) : value
            }
            switch part {
            case .whole: result.scores = adjusted
            case .left: result.left = adjusted
            case .right: result.right = adjusted
            }
        }
        return result
    }

    private func forEachSlot(of expressions: Expressions, _ body: (Int, Double) -> Void) {
        for part in Part.allCases {
            for (key, value) in Self.scores(part, of: expressions).present where key != .attention {
                body(Self.slot(key, part: part), value)
            }
        }
    }

    private static func scores(_ part: Part, of expressions: Expressions) -> Scores<FacialExpression> {
        switch part {
        case .whole: expressions.scores
        case .left: expressions.left
        case .right: expressions.right
        }
    }

    private static func slot(_ expression: FacialExpression, part: Part) -> Int {
        part.rawValue * FacialExpression.allCases.count + expression.position
    }
}
