import HashTreeCollections
import MienCore

/// Sessions by when they were seen, in 10-second buckets, so that "how many were seen since T" costs the buckets
/// at T's edge, not the sessions: buckets wholly before a threshold asked for are retired (thresholds only move
/// forward, as the clock does).
package struct SeenWindow: Sendable {
    private var buckets: TreeDictionary<Int, TreeDictionary<String, Double>> = [:]
    /// Entries in `buckets`.
    private var total = 0
    /// Buckets before it are retired.
    private var oldest = Int.min

    private static func bucket(_ time: Double) -> Int {
        guard time.isFinite else { return time < 0 ? Int.min : Int.max }
        return Int(saturating: (time / 10).clamped(to: -1e15...1e15), rounding: .down)
    }

    package mutating func insert(_ id: String, seen time: Double) {
        let bucket = Self.bucket(time)
        guard bucket >= oldest else { return }
        if buckets[bucket, default: [:]].updateValue(time, forKey: id) == nil { total += 1 }
    }

    package mutating func remove(_ id: String, seen time: Double) {
        let bucket = Self.bucket(time)
        guard bucket >= oldest, buckets[bucket]?.removeValue(forKey: id) != nil else { return }
        total -= 1
        if buckets[bucket]?.isEmpty ?? false { buckets[bucket] = nil }
    }

    /// How many were seen at `threshold` or later.
    package mutating func count(since threshold: Double) -> Int {
        let edge = Self.bucket(threshold)
        if edge > oldest { retire(below: edge) }
        let before = buckets[edge].map { $0.values.lazy.filter { $0 < threshold }.count } ?? 0
        return total - before
    }

    private mutating func retire(below edge: Int) {
        if oldest == Int.min || edge - oldest > buckets.count {
            // A long gap (or the first time): the buckets themselves are fewer than the steps.
            for key in Array(buckets.keys) where key < edge {
                total -= buckets.removeValue(forKey: key)?.count ?? 0
            }
        } else {
            for key in oldest..<edge { total -= buckets.removeValue(forKey: key)?.count ?? 0 }
        }
        oldest = edge
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
