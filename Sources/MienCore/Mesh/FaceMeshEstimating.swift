/// A stage that measures the face mesh inside a face region.
///
/// - Important: Implementations hold neural networks and are not reentrant: one call at a time.
public protocol FaceMeshEstimating: AnyObject {
    /// The mesh of the face in `region` of `frame`.
    func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh
}
