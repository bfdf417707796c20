/// Head pose from a face mesh: the canonical face is fitted to the mesh's stable points by weighted
/// Procrustes and the fitted rotation read as yaw, pitch and roll.
///
/// The mesh's x and y are frame pixels and its z is depth on the same scale (larger = farther), the
/// weak-perspective geometry of MediaPipe's landmarks; flipping y and z gives the canonical model's
/// right-handed axes, so the fit needs no camera intrinsics.
package struct HeadPoseEstimator: Sendable {
    package let model: CanonicalFaceModel

    package init(model: CanonicalFaceModel) { self.model = model }

    /// The pose of the face whose 478 (or 468) mesh points in frame pixels are `points`.
    /// - Returns: nil for a degenerate mesh.
    package func pose(points: [Point3D]) -> HeadPose? {
        fit(points: points)?.pose
    }

    /// The pose of the face whose mesh points in frame pixels are `points`, with the canonical face's
    /// fit behind it (kept so the frontal view can be built later without fitting again).
    /// - Returns: nil for a degenerate mesh.
    package func fit(points: [Point3D]) -> (pose: HeadPose, fit: WeightedProcrustes.Fit)? {
        guard points.count >= FaceLandmark.meshPointCount else { return nil }
        let indices = model.weightedLandmarks.map(\.index)
        let source = indices.map { model.vertices[$0] }
        let target = indices.map { Self.rightHanded(points[$0]) }
        guard
            let fit = WeightedProcrustes.fit(
                source: source, target: target, weights: model.weightedLandmarks.map(\.weight))
        else { return nil }
        let interocular = points[FaceLandmark.rightEyeOuterCorner].xy.distance(
            to: points[FaceLandmark.leftEyeOuterCorner].xy)
        return (HeadPose(rotation: fit.rotation, interocularDistance: interocular), fit)
    }

    /// The frontal view of the face with mesh `points` (frame pixels) under `fit` (from `fit(points:)`).
    package static func frontal(points: [Point3D], fit: WeightedProcrustes.Fit) -> FrontalFace? {
        FrontalFace(points: points.map(rightHanded), fit: fit)
    }

    /// Mesh space (y down, z away from the camera) to the canonical model's (y up, z toward the camera).
    private static func rightHanded(_ p: Point3D) -> Point3D { Point3D(x: p.x, y: -p.y, z: -p.z) }
}
