/// The local maxima of a curve with their topographic prominence (as scipy.signal's `find_peaks` and
/// `peak_prominences` define it), and the bins of the bases that define it.
package enum Peaks {
    /// One interior local maximum.
    package struct Peak: Sendable, Equatable {
        /// The peak's index (a plateau: its first index).
        package var index: Int
        /// How far it rises above the higher of its two bases.
        package var prominence: Double
        /// The lowest point between the peak and higher ground (or the end) on its left, and on its right.
        package var leftBase: Int
        package var rightBase: Int
    }

    /// The interior local maxima of `values` (nil: not measured; skipped).
    package static func find(_ values: [Double?]) -> [Peak] {
        let defined = values.indices.compactMap { index in values[index].map { (index, $0) } }
        var peaks: [Peak] = []
        guard defined.count >= 3 else { return [] }
        for position in 1..<(defined.count - 1) {
            let value = defined[position].1
            // A plateau counts once, at its first bin.
            guard value > defined[position - 1].1, value >= defined[position + 1].1 else { continue }
            var right = position + 1
            while right < defined.count, defined[right].1 == value { right += 1 }
            guard right < defined.count, defined[right].1 < value else { continue }
            var leftLow = (index: position, value: value)
            for index in stride(from: position - 1, through: 0, by: -1) {
                if defined[index].1 > value { break }
                if defined[index].1 < leftLow.value { leftLow = (index, defined[index].1) }
            }
            var rightLow = (index: position, value: value)
            for index in right..<defined.count {
                if defined[index].1 > value { break }
                if defined[index].1 < rightLow.value { rightLow = (index, defined[index].1) }
            }
            peaks.append(
                Peak(
                    index: defined[position].0, prominence: value - max(leftLow.value, rightLow.value),
                    leftBase: defined[leftLow.index].0, rightBase: defined[rightLow.index].0))
        }
        return peaks
    }
}
