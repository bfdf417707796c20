/// MediaPipe's 478-point face mesh for one face in one frame.
public struct FaceMesh: Sendable, Equatable {
    /// 478 points (see `FaceLandmark`): x and y in frame pixels (top-left origin), z relative depth in
    /// pixels on the same scale, larger = farther from the camera, 0 near the face's centre plane.
    public var points: [Point3D]
    /// Probability (0...1) that the crop really held a face; tracking drops the face below a threshold.
    public var presence: Double
    /// The region the mesh was measured in.
    public var region: FaceRegion

    public init(points: [Point3D], presence: Double, region: FaceRegion) {
        self.points = points
        self.presence = presence
        self.region = region
    }

    /// The axis-aligned box around the 468 surface points, in frame pixels.
    public var bounds: Rect { Self.bounds(of: points) }

    /// The axis-aligned box around the first 468 (surface) of `points`.
    public static func bounds(of points: [Point3D]) -> Rect {
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for p in points.prefix(FaceLandmark.meshPointCount) {
            minX = min(minX, p.x)
            minY = min(minY, p.y)
            maxX = max(maxX, p.x)
            maxY = max(maxY, p.y)
        }
        guard minX <= maxX else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
