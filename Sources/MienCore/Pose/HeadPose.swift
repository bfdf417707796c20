import RealModule

/// Head orientation, Affdex's `AFDXOrientation`.
///
/// Angles are degrees, 0 for a face looking straight at the camera, with these signs (left and right
/// are the person's, for an unmirrored camera):
/// - `yaw` > 0: the person turns their head to their left (their nose points toward the image's right).
/// - `pitch` > 0: the person looks up.
/// - `roll` > 0: the person tilts their head toward their left shoulder (the image's right side of the
///   face goes down, a clockwise turn on screen).
public struct HeadPose: Sendable, Equatable, Codable {
    /// Degrees, -180...180.
    public var yaw: Double
    /// Degrees, -90...90.
    public var pitch: Double
    /// Degrees, -180...180.
    public var roll: Double
    /// Distance between the outer eye corners in frame pixels, as Affdex defines it.
    public var interocularDistance: Double

    public init(yaw: Double, pitch: Double, roll: Double, interocularDistance: Double) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
        self.interocularDistance = interocularDistance
    }

    /// Reads the angles off a rotation that maps the canonical face (x toward the face's left, y up,
    /// z toward the camera) into camera space with the same axes (x image-right, y up, z toward camera).
    package init(rotation r: WeightedProcrustes.Matrix3, interocularDistance: Double) {
        let degrees = 180 / Double.pi
        // Where the face's forward (nose) and left-to-right axes point after the rotation.
        let forward = (x: r[0][2], y: r[1][2], z: r[2][2])
        let across = (x: r[0][0], y: r[1][0])
        self.init(
            yaw: Double.atan2(y: forward.x, x: forward.z) * degrees,
            pitch: Double.asin(max(-1, min(1, forward.y))) * degrees,
            roll: Double.atan2(y: -across.y, x: across.x) * degrees,
            interocularDistance: interocularDistance)
    }
}
