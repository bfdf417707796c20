/// Where dlib's face recognition network expects a face: the 150 x 150 chip that dlib's
/// `get_face_chip_details(shape, 150, 0.25)` cuts around 68 iBUG points (issue "Faces that come back
/// keep their ID").
///
/// dlib fits a similarity transform (rotation, uniform scale, translation; least squares) from its mean
/// face shape, padded by a quarter on each side and scaled to the chip, to the face's points 27...67
/// without the lower lip (55...59, 65...67): eyes, nose and upper mouth, the parts that stay put while a
/// face moves. Mien's points come from the mesh (`Ibug68Points`).
package enum RecognitionChip {
    /// Chip side, pixels.
    package static let side = 150
    /// Margin around the mean face, as a fraction of its size on each side (dlib's `padding` 0.25).
    package static let padding = 0.25

    /// dlib's mean face shape for iBUG points 17...67, in 0...1 (dlib's `mean_face_shape_x/y`).
    static let meanShapeX: [Double] = [
        0.000213256, 0.0752622, 0.18113, 0.29077, 0.393397, 0.586856, 0.689483, 0.799124,
        0.904991, 0.98004, 0.490127, 0.490127, 0.490127, 0.490127, 0.36688, 0.426036,
        0.490127, 0.554217, 0.613373, 0.121737, 0.187122, 0.265825, 0.334606, 0.260918,
        0.182743, 0.645647, 0.714428, 0.793132, 0.858516, 0.79751, 0.719335, 0.254149,
        0.340985, 0.428858, 0.490127, 0.551395, 0.639268, 0.726104, 0.642159, 0.556721,
        0.490127, 0.423532, 0.338094, 0.290379, 0.428096, 0.490127, 0.552157, 0.689874,
        0.553364, 0.490127, 0.42689,
    ]
    static let meanShapeY: [Double] = [
        0.106454, 0.038915, 0.0187482, 0.0344891, 0.0773906, 0.0773906, 0.0344891,
        0.0187482, 0.038915, 0.106454, 0.203352, 0.307009, 0.409805, 0.515625, 0.587326,
        0.609345, 0.628106, 0.609345, 0.587326, 0.216423, 0.178758, 0.179852, 0.231733,
        0.245099, 0.244077, 0.231733, 0.179852, 0.178758, 0.216423, 0.244077, 0.245099,
        0.780233, 0.745405, 0.727388, 0.742578, 0.727388, 0.745405, 0.780233, 0.864805,
        0.902192, 0.909281, 0.902192, 0.864805, 0.784792, 0.778746, 0.785343, 0.778746,
        0.784792, 0.824182, 0.831803, 0.824182,
    ]

    /// The iBUG indices dlib aligns on: 27...67 without the lower lip.
    package static let alignedPoints: [Int] = (27...67).filter { !(55...59).contains($0) && !(65...67).contains($0) }

    /// Where point `index` (iBUG, 17...67) of dlib's mean face lies in the chip, pixels.
    package static func templatePoint(_ index: Int) -> Point {
        let scale = Double(side) / (2 * padding + 1)
        return Point(
            x: (padding + meanShapeX[index - 17]) * scale, y: (padding + meanShapeY[index - 17]) * scale)
    }

    /// The map from frame pixels to chip pixels for a face with these 68 iBUG points (frame pixels), or
    /// nil when there are not 68 points or they are degenerate (all in one place).
    package static func chipFromFrame(ibug68 points: [Point]) -> AffineTransform? {
        guard points.count == 68 else { return nil }
        let from = alignedPoints.map { points[$0] }
        let to = alignedPoints.map(templatePoint)
        return similarity(from: from, to: to)
    }

    /// The least-squares similarity transform (rotation, uniform scale, translation, no reflection) taking
    /// `from` onto `to`, or nil when `from` has no extent.
    ///
    /// With both point sets centred, the transform `x' = a·x − b·y`, `y' = b·x + a·y` minimising the squared
    /// error has `a = Σ(x·u + y·v) / Σ(x² + y²)` and `b = Σ(x·v − y·u) / Σ(x² + y²)` (Umeyama's solution in
    /// two dimensions).
    package static func similarity(from: [Point], to: [Point]) -> AffineTransform? {
        guard from.count == to.count, from.count >= 2 else { return nil }
        let n = Double(from.count)
        let fromMean = Point(x: from.map(\.x).reduce(0, +) / n, y: from.map(\.y).reduce(0, +) / n)
        let toMean = Point(x: to.map(\.x).reduce(0, +) / n, y: to.map(\.y).reduce(0, +) / n)
        var dot = 0.0
        var cross = 0.0
        var norm = 0.0
        for (p, q) in zip(from, to) {
            let (x, y) = (p.x - fromMean.x, p.y - fromMean.y)
            let (u, v) = (q.x - toMean.x, q.y - toMean.y)
            dot += x * u + y * v
            cross += x * v - y * u
            norm += x * x + y * y
        }
        guard norm > 1e-12 else { return nil }
        let a = dot / norm
        let b = cross / norm
        return AffineTransform(
            a: a, b: -b, tx: toMean.x - (a * fromMean.x - b * fromMean.y),
            c: b, d: a, ty: toMean.y - (b * fromMean.x + a * fromMean.y))
    }
}
