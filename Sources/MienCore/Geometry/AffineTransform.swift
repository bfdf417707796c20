/// A 2-D affine map `p' = A·p + t`, stored row-major as
/// `[a, b, tx; c, d, ty]`, so `x' = a·x + b·y + tx` and `y' = c·x + d·y + ty`.
///
/// Mien uses it to move between frame pixels and a model's tensor pixels (letterboxing, rotated crops).
package struct AffineTransform: Hashable, Sendable {
    package var a: Double, b: Double, tx: Double
    package var c: Double, d: Double, ty: Double

    package init(a: Double, b: Double, tx: Double, c: Double, d: Double, ty: Double) {
        (self.a, self.b, self.tx, self.c, self.d, self.ty) = (a, b, tx, c, d, ty)
    }

    package static let identity = AffineTransform(a: 1, b: 0, tx: 0, c: 0, d: 1, ty: 0)

    /// Uniform scale `s` then translation by (`dx`, `dy`).
    package static func scale(_ s: Double, thenTranslate dx: Double, _ dy: Double) -> AffineTransform {
        AffineTransform(a: s, b: 0, tx: dx, c: 0, d: s, ty: dy)
    }

    /// Maps `point` through the transform.
    package func apply(_ point: Point) -> Point {
        Point(x: a * point.x + b * point.y + tx, y: c * point.x + d * point.y + ty)
    }

    /// The map that undoes this one, or nil when it is singular.
    package var inverted: AffineTransform? {
        let det = a * d - b * c
        guard abs(det) > 1e-12 else { return nil }
        let ia = d / det
        let ib = -b / det
        let ic = -c / det
        let id = a / det
        return AffineTransform(a: ia, b: ib, tx: -(ia * tx + ib * ty), c: ic, d: id, ty: -(ic * tx + id * ty))
    }

    /// `self` after `first`: applying the result equals applying `first`, then `self`.
    package func concatenating(after first: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * first.a + b * first.c, b: a * first.b + b * first.d, tx: a * first.tx + b * first.ty + tx,
            c: c * first.a + d * first.c, d: c * first.b + d * first.d, ty: c * first.tx + d * first.ty + ty)
    }

    /// The similarity (rotation, uniform scale, translation; no reflection) that maps `source` onto
    /// `target` with the least squared error (Umeyama's closed form in 2-D), or nil for fewer than two
    /// distinct points.
    package static func similarity(mapping source: [Point], onto target: [Point]) -> AffineTransform? {
        let n = min(source.count, target.count)
        guard n >= 2 else { return nil }
        let count = Double(n)
        let sx = source.prefix(n).map(\.x).reduce(0, +) / count
        let sy = source.prefix(n).map(\.y).reduce(0, +) / count
        let txm = target.prefix(n).map(\.x).reduce(0, +) / count
        let tym = target.prefix(n).map(\.y).reduce(0, +) / count
        // With z = x + iy, the best complex factor is Σ conj(s)·t / Σ |s|² = (p + iq) / spread.
        var p = 0.0
        var q = 0.0
        var spread = 0.0
        for i in 0..<n {
            let (ux, uy) = (source[i].x - sx, source[i].y - sy)
            let (vx, vy) = (target[i].x - txm, target[i].y - tym)
            p += ux * vx + uy * vy
            q += ux * vy - uy * vx
            spread += ux * ux + uy * uy
        }
        guard spread > 1e-12 else { return nil }
        let (ca, sa) = (p / spread, q / spread)
        return AffineTransform(a: ca, b: -sa, tx: txm - ca * sx + sa * sy, c: sa, d: ca, ty: tym - sa * sx - ca * sy)
    }

    /// The six coefficients in row-major order, as the bridge expects them.
    package var rowMajor: [Double] { [a, b, tx, c, d, ty] }
}
