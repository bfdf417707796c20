/// A face mesh seen from the front: the head's rotation, scale and position removed, so distances
/// between points measure the face itself and not how it is turned or how far it is.
///
/// Coordinates are the face's own: x toward the person's left, y up, z toward the camera (the canonical
/// model's axes), in units of the distance between the outer eye corners (1 = one interocular
/// distance), origin at the canonical model's origin (near the nose). Every geometric expression
/// measure reads these points, which is why expressions stay comparable across head poses and sizes.
package struct FrontalFace: Sendable, Equatable {
    /// The 478 (or 468) points, in mesh order.
    package let points: [Point3D]

    /// Undoes `fit` (which maps the canonical face onto `points`) on every point, then rescales so the
    /// outer eye corners are 1 apart.
    /// - Parameter points: the mesh with y up and z toward the camera (frame pixels otherwise).
    /// - Returns: nil for a degenerate fit or mesh.
    package init?(points: [Point3D], fit: WeightedProcrustes.Fit) {
        guard fit.scale > 0, points.count >= FaceLandmark.meshPointCount else { return nil }
        let r = fit.rotation
        // The transpose of a rotation is its inverse.
        let inverse: WeightedProcrustes.Matrix3 = [
            [r[0][0], r[1][0], r[2][0]], [r[0][1], r[1][1], r[2][1]], [r[0][2], r[1][2], r[2][2]],
        ]
        let canonical = points.map { WeightedProcrustes.apply(inverse, (1 / fit.scale) * ($0 - fit.translation)) }
        let interocular =
            (canonical[FaceLandmark.rightEyeOuterCorner] - canonical[FaceLandmark.leftEyeOuterCorner]).length
        guard interocular > 0, interocular.isFinite else { return nil }
        self.points = canonical.map { (1 / interocular) * $0 }
    }

    /// The point at mesh index `index`.
    package subscript(_ index: Int) -> Point3D { points[index] }

    /// Distance between two mesh points, in interocular distances.
    package func distance(_ a: Int, _ b: Int) -> Double { (points[a] - points[b]).length }
}
