/// An open chain of points joined by straight segments, in whatever 2-D space its points are in.
package struct Polyline: Sendable, Equatable {
    /// The vertices in order.
    package var points: [Point]

    package init(_ points: [Point]) {
        self.points = points
    }

    /// The total length of the segments, in the points' units.
    package var length: Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
    }

    /// `count` points spaced evenly by arc length along the chain, the first and last on its ends.
    ///
    /// Landmark conventions such as 300-W space a contour's points evenly between two anchors, which a
    /// fixed set of mesh vertices does not; resampling the mesh's contour does. An empty chain gives no
    /// points; a chain of zero length gives `count` copies of its first point.
    package func resampled(count: Int) -> [Point] {
        guard let first = points.first, count > 0 else { return [] }
        guard count > 1 else { return [first] }
        let total = length
        guard total > 0 else { return Array(repeating: first, count: count) }
        var result = [first]
        var segment = 0
        var walked = 0.0  // arc length at the start of `segment`
        for k in 1..<(count - 1) {
            let target = total * Double(k) / Double(count - 1)
            while segment < points.count - 2,
                walked + points[segment].distance(to: points[segment + 1]) < target
            {
                walked += points[segment].distance(to: points[segment + 1])
                segment += 1
            }
            let a = points[segment]
            let b = points[segment + 1]
            let span = a.distance(to: b)
            let t = span > 0 ? min(max((target - walked) / span, 0), 1) : 0
            result.append(Point(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y)))
        }
        result.append(points[points.count - 1])
        return result
    }

    /// The distance from `point` to the nearest point of the chain, in the points' units.
    package func distance(to point: Point) -> Double {
        guard let first = points.first else { return .infinity }
        guard points.count > 1 else { return first.distance(to: point) }
        return zip(points, points.dropFirst()).map { Self.closest(on: ($0, $1), to: point).point.distance(to: point) }
            .min() ?? .infinity
    }

    /// The point of the segment `(a, b)` nearest `point`, and its position `t` (0 at `a`, 1 at `b`).
    static func closest(on segment: (Point, Point), to point: Point) -> (point: Point, t: Double) {
        let (a, b) = segment
        let dx = b.x - a.x
        let dy = b.y - a.y
        let squared = dx * dx + dy * dy
        guard squared > 0 else { return (a, 0) }
        let t = min(max(((point.x - a.x) * dx + (point.y - a.y) * dy) / squared, 0), 1)
        return (Point(x: a.x + t * dx, y: a.y + t * dy), t)
    }
}
