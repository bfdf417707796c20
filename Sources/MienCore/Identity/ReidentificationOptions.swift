/// Settings of opt-in re-identification (`Reidentifier`): a face that comes back within `window` seconds
/// gets its old `faceId`.
///
/// Validated at creation. The defaults are the calibrated ones (see each).
public struct ReidentificationOptions: Sendable, Equatable, Hashable {
    /// Seconds (on the stream's clock) a lost face is remembered for.
    ///
    /// Default 600 (10 minutes); after that its descriptor is forgotten and it would come back as a new face.
    public var window: Double
    /// Largest descriptor distance (Euclidean, dlib's units) at which a new face is taken to be a lost one.
    ///
    /// Default `ReidentificationOptions.calibratedThreshold`.
    public var threshold: Double
    /// Good frames whose descriptors are averaged before a new face is compared with the lost ones.
    ///
    /// Default 3.
    public var samples: Int
    /// Seconds after a face appears by which it is decided, with the good frames there are (a new ID when
    /// there were none).
    ///
    /// Default 1. Until then the face is held back from results: a face published under one ID and then
    /// renamed would break every per-person number this feature exists for.
    public var decisionTime: Double
    /// Degrees of |yaw| beyond which a frame is not used: dlib's network was trained on near-frontal faces.
    ///
    /// Default 25.
    public var maximumYaw: Double
    /// Degrees of |pitch| beyond which a frame is not used.
    ///
    /// Default 20.
    public var maximumPitch: Double
    /// Frame pixels between the outer eye corners below which a frame is not used (the chip would be
    /// upscaled more than about twice).
    ///
    /// Default 25, as `ReliabilityLimits`.
    public var minimumInterocularDistance: Double
    /// `ChipSharpness` (grey levels) below which a chip is too blurred to use.
    ///
    /// Default `ReidentificationOptions.calibratedSharpness`.
    public var minimumSharpness: Double

    /// The distance threshold for a false-match rate of 0.1 % between two single pictures.
    ///
    /// `make eval` (identity) on the development verification pairs (muxspace's LFW and IMFDB crops that pass
    /// `admits` and the sharpness floor: 952 faces, 2,117 same-person pairs, 20,000 different-person pairs
    /// with seed 26) puts FAR 0.1 % at 0.536; chosen on four fifths of the people, the threshold was
    /// 0.527-0.539 over five person-wise folds, with a held-out FAR of 0.091 % and TAR of 89.9 %. Rounded down
    /// to 0.53, since a false merge (two people under one ID) costs more than a missed return (a new ID).
    public static let calibratedThreshold = 0.53
    /// The chip sharpness floor: refuses 4 % of the development faces (the 5th percentile is 4.2), the
    /// upscaled and defocused ones (see docs/metrics.md, "Faces that come back").
    public static let calibratedSharpness = 4.0

    /// - Throws: `.invalidOptions` naming the option for a window or decision time that is not positive, a
    ///   threshold outside (0, 2], fewer than 1 sample, angles outside 0...180 or a negative size or sharpness.
    public init(
        window: Double = 600, threshold: Double = Self.calibratedThreshold, samples: Int = 3,
        decisionTime: Double = 1, maximumYaw: Double = 25, maximumPitch: Double = 20,
        minimumInterocularDistance: Double = 25, minimumSharpness: Double = Self.calibratedSharpness
    ) throws {
        guard window > 0, window.isFinite else {
            throw MienError(.invalidOptions, "reidentification window must be a positive number of seconds")
        }
        guard threshold > 0, threshold <= 2 else {
            throw MienError(.invalidOptions, "reidentification threshold must be in (0, 2], got \(threshold)")
        }
        guard samples >= 1 else {
            throw MienError(.invalidOptions, "reidentification samples must be at least 1, got \(samples)")
        }
        guard decisionTime > 0, decisionTime.isFinite else {
            throw MienError(.invalidOptions, "reidentification decisionTime must be a positive number of seconds")
        }
        guard (0...180).contains(maximumYaw), (0...180).contains(maximumPitch) else {
            throw MienError(.invalidOptions, "reidentification yaw and pitch limits must be 0...180 degrees")
        }
        guard minimumInterocularDistance >= 0, minimumSharpness >= 0 else {
            throw MienError(.invalidOptions, "reidentification minimum face size and sharpness must be >= 0")
        }
        self.window = window
        self.threshold = threshold
        self.samples = samples
        self.decisionTime = decisionTime
        self.maximumYaw = maximumYaw
        self.maximumPitch = maximumPitch
        self.minimumInterocularDistance = minimumInterocularDistance
        self.minimumSharpness = minimumSharpness
    }

    /// Whether a face's frame is good enough to describe.
    ///
    /// Good enough means within the yaw and pitch limits, eyes at least `minimumInterocularDistance` apart, and the iBUG points the chip is aligned on (frame pixels; brows,
    /// nose, eyes and upper lip, `RecognitionChip.alignedPoints`) inside the frame: a chin cut by the frame's
    /// edge does not move the alignment. The chip's sharpness is judged after, on the chip.
    public func admits(pose: HeadPose?, ibug68: [Point], in frame: Frame) -> Bool {
        guard let pose, abs(pose.yaw) <= maximumYaw, abs(pose.pitch) <= maximumPitch,
            pose.interocularDistance >= minimumInterocularDistance
        else { return false }
        guard ibug68.count == 68 else { return false }
        return RecognitionChip.alignedPoints.allSatisfy { frame.bounds.contains(ibug68[$0]) }
    }
}
