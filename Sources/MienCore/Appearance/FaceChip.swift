/// dlib's aligned face chip (`get_face_chip_details` with its 5-point model), reproduced from the mesh:
/// the chip the Cydral gender and age models were trained on.
///
/// dlib maps five points (both corners of each eye and the point under the nose) onto fixed positions of
/// a square chip by the least-squares similarity; the same five points are read off MediaPipe's mesh.
package enum FaceChip {
    /// dlib's template positions (0...1 of the chip before padding) and the mesh point for each: the
    /// person's left eye outer and inner corner, right eye outer and inner corner, and the base of the
    /// nose (top of the philtrum).
    static let template: [(mesh: Int, x: Double, y: Double)] = [
        (FaceLandmark.leftEyeOuterCorner, 0.8595674595992, 0.2134981538014),
        (FaceLandmark.leftEyeInnerCorner, 0.6460604764104, 0.2289674387677),
        (FaceLandmark.rightEyeOuterCorner, 0.1205750620789, 0.2137274526848),
        (FaceLandmark.rightEyeInnerCorner, 0.3340850613712, 0.2290642403242),
        (2, 0.4901123135679, 0.6277975316475),
    ]

    /// dlib's default padding, which the Cydral models use: the chip shows 20 % more face on every side.
    package static let standardPadding = 0.2

    /// The transform from frame pixels to the pixels of a `size` x `size` chip of the face whose mesh
    /// points (frame pixels) are `points`; nil for a degenerate mesh.
    package static func transform(points: [Point3D], size: Int, padding: Double = standardPadding)
        -> AffineTransform?
    {
        guard points.count >= FaceLandmark.meshPointCount else { return nil }
        let side = Double(size)
        let chip = template.map {
            Point(x: (padding + $0.x) / (2 * padding + 1) * side, y: (padding + $0.y) / (2 * padding + 1) * side)
        }
        return AffineTransform.similarity(mapping: template.map { points[$0.mesh].xy }, onto: chip)
    }
}
