import Foundation

/// The statistics a study's figures use, on plain arrays.
enum StudyStatistics {
    /// Mean and 95 % interval (Student's t) of `values`; no interval below 2 values.
    static func meanInterval(_ values: [Double]) -> (mean: Double?, low: Double?, high: Double?) {
        guard !values.isEmpty else { return (nil, nil, nil) }
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        guard values.count >= 2 else { return (mean, nil, nil) }
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        let half = StudentT.critical95(degrees: n - 1) * (variance / n).squareRoot()
        return (mean, mean - half, mean + half)
    }

    /// The difference of the means of `a` and `b` and its 95 % interval (Welch); nil below 2 values in either.
    static func difference(_ a: [Double], _ b: [Double]) -> (value: Double, low: Double, high: Double)? {
        guard a.count >= 2, b.count >= 2 else { return nil }
        func moments(_ values: [Double]) -> (mean: Double, spread: Double) {
            let n = Double(values.count)
            let mean = values.reduce(0, +) / n
            return (mean, values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1) / n)
        }
        let (meanA, spreadA) = moments(a)
        let (meanB, spreadB) = moments(b)
        let value = meanA - meanB
        let spread = spreadA + spreadB
        guard spread > 0 else { return (value, value, value) }
        let degrees =
            spread * spread
            / (spreadA * spreadA / Double(a.count - 1) + spreadB * spreadB / Double(b.count - 1))
        let half = StudentT.critical95(degrees: degrees) * spread.squareRoot()
        return (value, value - half, value + half)
    }

    /// Pearson's correlation of the pairs; nil below 3 pairs or when either side is constant.
    static func correlation(_ pairs: [(Double, Double)]) -> Double? {
        guard pairs.count >= 3 else { return nil }
        let n = Double(pairs.count)
        let meanX = pairs.reduce(0) { $0 + $1.0 } / n
        let meanY = pairs.reduce(0) { $0 + $1.1 } / n
        var xy = 0.0
        var xx = 0.0
        var yy = 0.0
        for (x, y) in pairs {
            xy += (x - meanX) * (y - meanY)
            xx += (x - meanX) * (x - meanX)
            yy += (y - meanY) * (y - meanY)
        }
        // A series constant to rounding has no correlation to speak of.
        guard xx > 1e-12, yy > 1e-12 else { return nil }
        return xy / (xx * yy).squareRoot()
    }

    /// The interior local maxima of `values` (nil: not measured; skipped), with their topographic
    /// prominence: how far each rises above the higher of the lowest points between it and a higher value
    /// (or the end) on either side.
    static func peaks(_ values: [Double?]) -> [(index: Int, prominence: Double)] {
        let defined = values.indices.compactMap { index in values[index].map { (index, $0) } }
        var peaks: [(index: Int, prominence: Double)] = []
        guard defined.count >= 3 else { return [] }
        for position in 1..<(defined.count - 1) {
            let value = defined[position].1
            // A plateau counts once, at its first bin.
            guard value > defined[position - 1].1, value >= defined[position + 1].1 else { continue }
            var right = position + 1
            while right < defined.count, defined[right].1 == value { right += 1 }
            guard right < defined.count, defined[right].1 < value else { continue }
            var leftLow = value
            for index in stride(from: position - 1, through: 0, by: -1) {
                if defined[index].1 > value { break }
                leftLow = min(leftLow, defined[index].1)
            }
            var rightLow = value
            for index in right..<defined.count {
                if defined[index].1 > value { break }
                rightLow = min(rightLow, defined[index].1)
            }
            peaks.append((defined[position].0, value - max(leftLow, rightLow)))
        }
        return peaks
    }
}
