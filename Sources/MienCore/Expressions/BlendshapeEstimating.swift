/// Computes MediaPipe's 52 blendshapes from a face mesh.
package protocol BlendshapeEstimating {
    /// The blendshapes of the face whose 478 mesh points, in frame pixels, are `points`.
    func blendshapes(points: [Point3D]) throws -> Blendshapes
}
