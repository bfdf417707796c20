/// Where a person looks: the direction of regard relative to the camera, for both eyes together and for
/// each eye, and the part of it the eyes do inside the head.
///
/// Angles are degrees with head pose's conventions: yaw > 0 toward the person's left (their gaze goes to
/// the image's right), pitch > 0 up. `yaw = head yaw + eyeYaw`, `pitch = head pitch + eyePitch`, so
/// `eyeYaw` / `eyePitch` separate eye movement from head movement. Measured by `GazeEstimator`.
public struct Gaze: Sendable, Equatable, Codable {
    /// One eye's direction.
    public struct Eye: Sendable, Equatable, Codable {
        /// The direction relative to the camera, degrees.
        public var yaw: Double
        public var pitch: Double
        /// The eye's rotation in the head, degrees.
        public var eyeYaw: Double
        public var eyePitch: Double
        /// The iris centre, frame pixels (where a gaze arrow starts).
        public var origin: Point

        public init(yaw: Double, pitch: Double, eyeYaw: Double, eyePitch: Double, origin: Point) {
            self.yaw = yaw
            self.pitch = pitch
            self.eyeYaw = eyeYaw
            self.eyePitch = eyePitch
            self.origin = origin
        }
    }

    /// Both eyes together (the mean of the eyes measured), relative to the camera, degrees.
    public var yaw: Double
    public var pitch: Double
    /// The eyes' rotation in the head, degrees.
    public var eyeYaw: Double
    public var eyePitch: Double
    /// The person's left and right eye; nil for an eye that is closed or turned away from the camera.
    public var left: Eye?
    public var right: Eye?

    public init(yaw: Double, pitch: Double, eyeYaw: Double, eyePitch: Double, left: Eye?, right: Eye?) {
        self.yaw = yaw
        self.pitch = pitch
        self.eyeYaw = eyeYaw
        self.eyePitch = eyePitch
        self.left = left
        self.right = right
    }
}
