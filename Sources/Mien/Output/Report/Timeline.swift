/// One metric over time, kept at a bounded size however long the input runs.
///
/// Values arrive one per processed frame. The timeline keeps at most `capacity` points: each point is the
/// mean time and mean value of a bucket of consecutive samples. When the points fill up, neighbouring
/// pairs merge and later buckets hold twice as many samples, so a 30-minute video costs the same memory
/// as a 30-second one and every stretch of time keeps the same resolution.
package struct Timeline: Sendable, Codable {
    /// One plotted point: `time` in seconds from the start of the input, `value` in the metric's units.
    package struct Sample: Sendable, Equatable, Codable {
        /// Seconds from the start of the input.
        package var time: Double
        /// The metric's value, in its units (0...100 for scores, -100...100 for valence).
        package var value: Double

        /// A point at `time` seconds with `value`.
        package init(time: Double, value: Double) {
            self.time = time
            self.value = value
        }
    }

    /// Most points kept (at least 2; even, so pairs merge cleanly).
    package let capacity: Int
    /// The points, oldest first (the bucket still filling is not included until it is full).
    package private(set) var points: [Sample] = []
    /// Samples per point.
    package private(set) var bucketSize = 1
    /// Every sample ever added.
    package private(set) var count = 0

    /// The bucket still filling: sums of its samples' times and values, and how many there are.
    private struct Pending: Sendable, Codable {
        var time = 0.0
        var value = 0.0
        var count = 0
    }
    private var pending = Pending()

    /// An empty timeline.
    /// - Parameter capacity: most points kept; rounded up to an even number of at least 2.
    package init(capacity: Int = 600) {
        self.capacity = max(2, capacity + capacity % 2)
        points.reserveCapacity(self.capacity)
    }

    /// Adds one sample (non-finite values are ignored).
    package mutating func add(time: Double, value: Double) {
        guard time.isFinite, value.isFinite else { return }
        count += 1
        pending = Pending(time: pending.time + time, value: pending.value + value, count: pending.count + 1)
        guard pending.count == bucketSize else { return }
        points.append(Sample(time: pending.time / Double(bucketSize), value: pending.value / Double(bucketSize)))
        pending = Pending()
        if points.count == capacity { halve() }
    }

    /// The points plus the partly filled last bucket (what a chart should draw).
    package var samples: [Sample] {
        guard pending.count > 0 else { return points }
        let n = Double(pending.count)
        return points + [Sample(time: pending.time / n, value: pending.value / n)]
    }

    private mutating func halve() {
        points = stride(from: 0, to: points.count - 1, by: 2).map { i in
            Sample(
                time: (points[i].time + points[i + 1].time) / 2, value: (points[i].value + points[i + 1].value) / 2)
        }
        bucketSize *= 2
    }
}
