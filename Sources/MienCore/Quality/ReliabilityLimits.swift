/// Where expression measurement stops being reliable; beyond these a face's scores are flagged
/// (`QualityFlag`) and do not teach the per-person baseline.
package struct ReliabilityLimits: Sendable, Equatable {
    /// Degrees of |yaw|.
    ///
    /// Default 30 (Affdex documents ±25–30° as its reliable range).
    package var maximumYaw: Double
    /// Degrees of |pitch|.
    ///
    /// Default 25 (pitch is measured less precisely than yaw).
    package var maximumPitch: Double
    /// Frame pixels between the outer eye corners.
    ///
    /// Default 25 (a face about 60 pixels wide), below
    /// which lid and lip movements are a pixel or two.
    package var minimumInterocularDistance: Double
    /// `FaceQuality.brightness`, 0...100.
    ///
    /// Default 15.
    package var minimumBrightness: Double
    /// `FaceQuality.insideFrame`, 0...1.
    ///
    /// Default 0.95.
    package var minimumInsideFrame: Double

    /// - Throws: `.invalidArgument` for an angle outside 0...180, a negative size or brightness, or a
    ///   share outside 0...1.
    package init(
        maximumYaw: Double = 30, maximumPitch: Double = 25, minimumInterocularDistance: Double = 25,
        minimumBrightness: Double = 15, minimumInsideFrame: Double = 0.95
    ) throws {
        guard (0...180).contains(maximumYaw), (0...180).contains(maximumPitch) else {
            throw MienError(.invalidArgument, "reliable yaw and pitch limits must be 0...180 degrees")
        }
        guard minimumInterocularDistance >= 0, (0...100).contains(minimumBrightness) else {
            throw MienError(.invalidArgument, "minimum face size must be >= 0 and minimum brightness 0...100")
        }
        guard (0...1).contains(minimumInsideFrame) else {
            throw MienError(.invalidArgument, "minimum share inside the frame must be 0...1")
        }
        self.maximumYaw = maximumYaw
        self.maximumPitch = maximumPitch
        self.minimumInterocularDistance = minimumInterocularDistance
        self.minimumBrightness = minimumBrightness
        self.minimumInsideFrame = minimumInsideFrame
    }

    /// The documented defaults.
    package static let standard = ReliabilityLimits(
        checkedYaw: 30, pitch: 25, interocularDistance: 25, brightness: 15, insideFrame: 0.95)

    private init(
        checkedYaw yaw: Double, pitch: Double, interocularDistance: Double, brightness: Double, insideFrame: Double
    ) {
        maximumYaw = yaw
        maximumPitch = pitch
        minimumInterocularDistance = interocularDistance
        minimumBrightness = brightness
        minimumInsideFrame = insideFrame
    }

    /// The flags a face with this pose and quality raises (empty when it can be trusted).
    package func flags(pose: HeadPose?, quality: FaceQuality) -> [QualityFlag] {
        var flags: [QualityFlag] = []
        if let pose {
            if abs(pose.yaw) > maximumYaw { flags.append(.headTurned) }
            if abs(pose.pitch) > maximumPitch { flags.append(.headTilted) }
            if pose.interocularDistance < minimumInterocularDistance { flags.append(.faceTooSmall) }
        }
        if quality.brightness < minimumBrightness { flags.append(.faceTooDark) }
        if quality.insideFrame < minimumInsideFrame { flags.append(.partlyOutOfFrame) }
        return flags
    }
}
