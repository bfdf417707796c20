import RealModule

/// Gaze from the mesh's eye corners and iris centres, combined with head pose: an eyeball model on where
/// each iris sits in its eye, as seen in the picture.
///
/// For each eye the iris centre's offset from the midpoint of the eye corners is measured along the
/// corner line (toward the person's left) and across it (up), in half eye widths, in frame pixels. An
/// offset `d` becomes a rotation `asin(d / radius)`; the vertical offset first loses `restingOffset`,
/// where the iris of an eye looking straight ahead sits (above the corner line). The eye's rotation is
/// added to the head's yaw and pitch.
///
/// Why the picture and not the frontalised mesh: on Pointing'04 the offsets measured in the frontalised
/// mesh correlate with what the head leaves over of the label at |r| < 0.11, the same offsets in the
/// picture at 0.86 (pitch) and 0.64 (yaw). The constants were fitted on Pointing'04's dev persons with
/// leave-one-person-out folds (`make eval` repeats them): every constant is stable across the folds (see
/// `Model.pointing04`); the horizontal radius is large (people in that set turned
/// their heads toward the targets and their eyes little), so sideways eye movement counts for less than a
/// physical eyeball would give.
package struct GazeEstimator: Sendable {
    /// The eyeball model's constants, in half eye widths.
    package struct Model: Sendable, Equatable {
        /// Horizontal offset per unit of `sin(eye yaw)`.
        package var horizontalRadius: Double
        /// Vertical offset per unit of `sin(eye pitch)`.
        package var verticalRadius: Double
        /// Vertical offset of an eye looking straight ahead.
        package var restingOffset: Double

        package init(horizontalRadius: Double, verticalRadius: Double, restingOffset: Double) {
            self.horizontalRadius = horizontalRadius
            self.verticalRadius = verticalRadius
            self.restingOffset = restingOffset
        }

        /// Fitted on Pointing'04's 8 dev persons together, by `make eval`'s own procedure (least mean
        /// absolute error over a grid; its leave-one-person-out folds give 3.6-3.9 / 0.61-0.64 / 0.15-0.18).
        package static let pointing04 = Model(horizontalRadius: 3.7, verticalRadius: 0.63, restingOffset: 0.17)
    }

    /// When gaze cannot be measured.
    package struct Limits: Sendable, Equatable {
        /// An eye whose opening (lid gap over eye width) is below this is closed.
        package var closedEyeOpening = 0.10
        /// Beyond this head yaw (degrees) the eye on the far side is too foreshortened to read.
        package var farEyeYaw = 40.0
        /// Beyond these head angles (degrees) no gaze is reported (the face is turned away).
        package var maximumYaw = 60.0
        package var maximumPitch = 50.0
        /// Below this interocular distance (pixels) the irises are a few pixels wide.
        package var minimumInterocularDistance = 25.0

        package init() {}
    }

    package var model: Model
    package var limits: Limits

    package init(model: Model = .pointing04, limits: Limits = Limits()) {
        self.model = model
        self.limits = limits
    }

    /// One iris as measured: its offset in the eye (half eye widths, x toward the person's left, y up) and
    /// its centre (frame pixels).
    package struct Iris: Sendable, Equatable {
        package var offset: Point
        package var origin: Point
    }

    /// Where the irises of the eyes that can be read sit, before any model: what `gaze` turns into angles.
    package struct Measurement: Sendable, Equatable {
        /// Each eye that is open and not on the far side of a turned head.
        package var left: Iris?
        package var right: Iris?
    }

    /// The irises of a face with this mesh (frame pixels, with the 10 iris points) and head pose; nil when
    /// gaze cannot be measured (no irises, face too small or turned away, both eyes closed or hidden).
    package func measure(mesh: FaceMesh, pose: HeadPose) -> Measurement? {
        guard mesh.points.count > FaceLandmark.leftIrisCenter,
            pose.interocularDistance >= limits.minimumInterocularDistance,
            abs(pose.yaw) <= limits.maximumYaw, abs(pose.pitch) <= limits.maximumPitch
        else { return nil }
        func usable(_ side: Side, hidden: Bool) -> Iris? {
            guard !hidden, let eye = Self.irisOffset(side, mesh: mesh), eye.opening >= limits.closedEyeOpening
            else { return nil }
            return Iris(offset: eye.offset, origin: eye.iris)
        }
        // The person's left eye is on the far side when they turn to their right (yaw < 0).
        let measurement = Measurement(
            left: usable(.left, hidden: pose.yaw < -limits.farEyeYaw),
            right: usable(.right, hidden: pose.yaw > limits.farEyeYaw))
        return measurement.left == nil && measurement.right == nil ? nil : measurement
    }

    /// The gaze of a face with this mesh and head pose (see `measure`); nil when it cannot be measured.
    package func gaze(mesh: FaceMesh, pose: HeadPose) -> Gaze? {
        measure(mesh: mesh, pose: pose).map { gaze(from: $0, pose: pose) }
    }

    /// The model applied to measured irises: each eye's rotation added to the head's, both eyes averaged.
    package func gaze(from measurement: Measurement, pose: HeadPose) -> Gaze {
        func eye(_ measured: Iris?) -> Gaze.Eye? {
            guard let measured else { return nil }
            let (eyeYaw, eyePitch) = rotation(offset: measured.offset)
            return Gaze.Eye(
                yaw: pose.yaw + eyeYaw, pitch: pose.pitch + eyePitch, eyeYaw: eyeYaw, eyePitch: eyePitch,
                origin: measured.origin)
        }
        let (left, right) = (eye(measurement.left), eye(measurement.right))
        let eyes = [left, right].compactMap { $0 }
        let count = Double(max(eyes.count, 1))
        let eyeYaw = eyes.map(\.eyeYaw).reduce(0, +) / count
        let eyePitch = eyes.map(\.eyePitch).reduce(0, +) / count
        return Gaze(
            yaw: pose.yaw + eyeYaw, pitch: pose.pitch + eyePitch, eyeYaw: eyeYaw, eyePitch: eyePitch, left: left,
            right: right)
    }

    /// The eye's rotation for an iris offset (half eye widths, x toward the person's left, y up), degrees.
    package func rotation(offset: Point) -> (yaw: Double, pitch: Double) {
        func degrees(_ sine: Double) -> Double { Double.asin(max(-1, min(1, sine))) * 180 / Double.pi }
        return (
            degrees(offset.x / model.horizontalRadius),
            degrees((offset.y - model.restingOffset) / model.verticalRadius)
        )
    }

    /// The person's left or right eye.
    package enum Side: Sendable { case left, right }

    /// Where the iris sits in the eye as seen in the picture; nil for a degenerate eye.
    ///
    /// Returns the offset from the corners' midpoint along the corner line (toward the person's left) and
    /// across it (up), in half eye widths; the eye's opening (mean lid gap over eye width); and the iris
    /// centre in pixels.
    package static func irisOffset(_ side: Side, mesh: FaceMesh) -> (offset: Point, opening: Double, iris: Point)? {
        // `first` -> `second` runs toward the image's right, which is the person's left.
        let (iris, first, second, lids): (Int, Int, Int, [(Int, Int)]) =
            switch side {
            case .left: (FaceLandmark.leftIrisCenter, 362, 263, [(385, 380), (387, 373)])
            case .right: (FaceLandmark.rightIrisCenter, 33, 133, [(160, 144), (158, 153)])
            }
        let p = mesh.points
        let (a, b, c) = (p[first].xy, p[second].xy, p[iris].xy)
        let width = a.distance(to: b)
        guard width > 1e-6 else { return nil }
        let half = width / 2
        let along = Point(x: (b.x - a.x) / width, y: (b.y - a.y) / width)
        // Image y grows downward: "up" is the corner line turned a quarter toward negative y.
        let up = Point(x: along.y, y: -along.x)
        let d = Point(x: c.x - (a.x + b.x) / 2, y: c.y - (a.y + b.y) / 2)
        let offset = Point(x: (d.x * along.x + d.y * along.y) / half, y: (d.x * up.x + d.y * up.y) / half)
        let opening = lids.map { p[$0.0].xy.distance(to: p[$0.1].xy) }.reduce(0, +) / Double(lids.count) / width
        return (offset, opening, c)
    }
}
