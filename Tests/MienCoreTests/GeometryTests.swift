import MienCore
import Testing

@Suite("Geometry: rectangles, affine maps, letterbox, tiles")
struct GeometryTests {
    @Test func iou_ofIdenticalDisjointAndHalfOverlappingBoxes() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.iou(a) == 1)
        #expect(a.iou(Rect(x: 20, y: 0, width: 10, height: 10)) == 0)
        #expect(abs(a.iou(Rect(x: 5, y: 0, width: 10, height: 10)) - 50.0 / 150.0) < 1e-12)
    }

    @Test func affineInverse_roundTrips() throws {
        let t = AffineTransform(a: 0.8, b: -0.6, tx: 12, c: 0.6, d: 0.8, ty: -7)
        let inverse = try #require(t.inverted)
        let p = Point(x: 123.4, y: -56.7)
        let back = inverse.apply(t.apply(p))
        #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
        let composed = inverse.concatenating(after: t)
        #expect(abs(composed.a - 1) < 1e-12 && abs(composed.tx) < 1e-9)
    }

    @Test func letterbox_keepsAspect_andCentresTheFrame() {
        // 1280 x 720 into 128 x 128: scale 0.1, 72 px tall, padded 28 px above and below.
        let box = Letterbox(region: Rect(x: 0, y: 0, width: 1280, height: 720), width: 128, height: 128)
        let topLeft = box.tensorFromFrame.apply(Point(x: 0, y: 0))
        let bottomRight = box.tensorFromFrame.apply(Point(x: 1280, y: 720))
        #expect(abs(topLeft.x) < 1e-9 && abs(topLeft.y - 28) < 1e-9)
        #expect(abs(bottomRight.x - 128) < 1e-9 && abs(bottomRight.y - 100) < 1e-9)
        let back = box.frameFromTensor.apply(Point(x: 64, y: 64))
        #expect(abs(back.x - 640) < 1e-9 && abs(back.y - 360) < 1e-9)
    }

    @Test func letterbox_ofATile_mapsTileCornersToTensorCorners() {
        let box = Letterbox(region: Rect(x: 100, y: 50, width: 200, height: 200), width: 192, height: 192)
        let corner = box.tensorFromFrame.apply(Point(x: 300, y: 250))
        #expect(abs(corner.x - 192) < 1e-9 && abs(corner.y - 192) < 1e-9)
    }

    @Test func tilePlan_smallFrame_usesTheWholeFrameOnly() {
        let plan = TilePlan(minimumFaceSize: 30, modelMinimumFace: 14, modelInput: 192, maximumTilesPerAxis: 3)
        #expect(plan.regions(width: 400, height: 300) == [Rect(x: 0, y: 0, width: 400, height: 300)])
    }

    @Test func tilePlan_largeFrame_coversItWithOverlappingBoundedTiles() {
        let plan = TilePlan(minimumFaceSize: 30, modelMinimumFace: 14, modelInput: 192, maximumTilesPerAxis: 3)
        let regions = plan.regions(width: 1920, height: 1080)
        #expect(regions.first == Rect(x: 0, y: 0, width: 1920, height: 1080))
        let tiles = Array(regions.dropFirst())
        #expect(tiles.count <= 9 && tiles.count >= 4)
        // Every point of the frame is inside some tile, and neighbours overlap by at least 2 minimum faces.
        for x in stride(from: 0.0, through: 1920, by: 37) {
            for y in stride(from: 0.0, through: 1080, by: 41) {
                #expect(tiles.contains { $0.contains(Point(x: x, y: y)) })
            }
        }
        let row = tiles.filter { $0.y == 0 }.sorted { $0.x < $1.x }
        for (left, right) in zip(row, row.dropFirst()) { #expect(left.maxX - right.minX >= 60) }
    }

    @Test func polyline_resampled_spacesPointsEvenlyByArcLength() {
        // An L: 3 long then 1 up; 5 points split its length 4 into quarters, one landing on the corner.
        let line = Polyline([Point(x: 0, y: 0), Point(x: 3, y: 0), Point(x: 3, y: 1)])
        #expect(line.length == 4)
        let points = line.resampled(count: 5)
        let expected = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 2, y: 0), Point(x: 3, y: 0), Point(x: 3, y: 1)]
        #expect(zip(points, expected).allSatisfy { $0.distance(to: $1) < 1e-9 } && points.count == 5)
        #expect(
            Polyline([Point(x: 2, y: 2), Point(x: 2, y: 2)]).resampled(count: 3)
                == Array(repeating: Point(x: 2, y: 2), count: 3))
        #expect(Polyline([]).resampled(count: 3).isEmpty)
        #expect(abs(line.distance(to: Point(x: 1.5, y: -2)) - 2) < 1e-9)
    }

    @Test func convexHull_keepsTheCornersAndWalksTheRequestedWayRound() throws {
        // A 4 x 4 square with points inside and on an edge: only the 4 corners are the hull.
        let square = [Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 4), Point(x: 0, y: 4)]
        let hull = ConvexHull(square + [Point(x: 2, y: 2), Point(x: 1, y: 3), Point(x: 2, y: 0)])
        #expect(Set(hull.vertices) == Set(square) && hull.vertices.count == 4)
        // From the middle of the left side to the middle of the right side, once under and once over.
        let start = try #require(hull.location(nearest: Point(x: -1, y: 2)))
        let end = try #require(hull.location(nearest: Point(x: 2.5, y: 2)))  // inside: nearest is x = 4
        #expect(start.point == Point(x: 0, y: 2) && end.point == Point(x: 4, y: 2))
        let under = hull.path(from: start, to: end, via: Point(x: 2, y: 5))
        let over = hull.path(from: start, to: end, via: Point(x: 2, y: -1))
        #expect(under.points == [Point(x: 0, y: 2), Point(x: 0, y: 4), Point(x: 4, y: 4), Point(x: 4, y: 2)])
        #expect(over.points == [Point(x: 0, y: 2), Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 2)])
        #expect(ConvexHull([Point(x: 0, y: 0), Point(x: 1, y: 1)]).location(nearest: .zero) == nil)
    }
}
