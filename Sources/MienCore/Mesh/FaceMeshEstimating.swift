/// A stage that measures the face mesh inside a face region.
///
/// - Important: Implementations hold neural networks and are not reentrant: one call at a time.
public protocol FaceMeshEstimating: AnyObject {
    /// The mesh of the face in `region` of `frame`.
    func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh

    /// The meshes of several faces of one frame, in the order of `regions`.
    ///
    /// Implementations may measure them concurrently; the default measures one after the other.
    func meshes(in frame: Frame, regions: [FaceRegion]) throws -> [FaceMesh]
}

extension FaceMeshEstimating {
    public func meshes(in frame: Frame, regions: [FaceRegion]) throws -> [FaceMesh] {
        try regions.map { try mesh(in: frame, region: $0) }
    }
}
