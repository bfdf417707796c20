/// The convex hull of a set of points: the outline a rubber band would take around them.
///
/// For a face mesh projected into the frame, the hull's lower half is the face's visible outline (jaw
/// and chin are convex), including the cheek that hides the far jaw when the head is turned.
package struct ConvexHull: Sendable, Equatable {
    /// The hull's corners in order around it (Andrew's monotone chain; points on an edge are left out).
    package let vertices: [Point]

    /// A place on the hull's outline: on the edge from vertex `edge` to the next, at fraction `t`.
    package struct Location: Sendable, Equatable {
        package var edge: Int
        package var t: Double
        package var point: Point
    }

    package init(_ points: [Point]) {
        let sorted = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard sorted.count > 2 else {
            vertices = sorted
            return
        }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [Point] = []
        for p in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        var upper: [Point] = []
        for p in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        vertices = Array(lower.dropLast() + upper.dropLast())
    }

    /// The place on the outline nearest `point` (which may lie inside or outside the hull); `nil` for a
    /// hull of fewer than 3 corners, which has no outline to walk.
    package func location(nearest point: Point) -> Location? {
        guard vertices.count > 2 else { return nil }
        var best: (distance: Double, location: Location)?
        for edge in vertices.indices {
            let found = Polyline.closest(on: (vertices[edge], vertices[(edge + 1) % vertices.count]), to: point)
            let distance = found.point.distance(to: point)
            if best.map({ distance < $0.distance }) ?? true {
                best = (distance, Location(edge: edge, t: found.t, point: found.point))
            }
        }
        return best?.location
    }

    /// The stretch of outline from `start` to `end` that passes nearer `via` of the two ways round.
    package func path(from start: Location, to end: Location, via: Point) -> Polyline {
        let forward = walk(from: start, to: end)
        let backward = Polyline(walk(from: end, to: start).points.reversed())
        return forward.distance(to: via) <= backward.distance(to: via) ? forward : backward
    }

    /// The outline from `start` to `end` in the vertices' order.
    private func walk(from start: Location, to end: Location) -> Polyline {
        var points = [start.point]
        if start.edge != end.edge || end.t < start.t {
            var vertex = (start.edge + 1) % vertices.count
            while true {
                points.append(vertices[vertex])
                if vertex == end.edge { break }
                vertex = (vertex + 1) % vertices.count
            }
        }
        points.append(end.point)
        return Polyline(points)
    }
}
