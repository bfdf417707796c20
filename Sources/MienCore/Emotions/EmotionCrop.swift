import RealModule

/// The face crop fer's emotion CNN reads: an upright square around the face, like FER-2013's images.
///
/// FER-2013's 48 x 48 pictures are faces registered so they are roughly centred, upright and fill most
/// of the picture, from the forehead to the chin. The crop is a square centred on the mesh's box,
/// rotated by the eye line so the face is upright, `scale` times the box's longer side.
package enum EmotionCrop {
    /// The transform from frame pixels to a `size` x `size` crop of the face with mesh `points`.
    package static func transform(points: [Point3D], size: Int, scale: Double) -> AffineTransform? {
        guard points.count >= FaceLandmark.meshPointCount else { return nil }
        let box = FaceMesh.bounds(of: points)
        let right = points[FaceLandmark.rightEyeOuterCorner].xy
        let left = points[FaceLandmark.leftEyeOuterCorner].xy
        let angle = Double.atan2(y: left.y - right.y, x: left.x - right.x)
        let side = max(box.width, box.height) * scale
        guard side > 0 else { return nil }
        let s = Double(size) / side
        let (cosine, sine) = (Double.cos(-angle) * s, Double.sin(-angle) * s)
        let centre = Point(x: box.x + box.width / 2, y: box.y + box.height / 2)
        // Rotate about the centre by -angle, scale, then put the centre in the middle of the crop.
        let half = Double(size) / 2
        return AffineTransform(
            a: cosine, b: -sine, tx: half - (cosine * centre.x - sine * centre.y),
            c: sine, d: cosine, ty: half - (sine * centre.x + cosine * centre.y))
    }
}
