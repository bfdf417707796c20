/// A reason why a face's expressions (and the emoji and emotions built on them) cannot be trusted in
/// this frame.
///
/// The scores are still reported; the flag says they may be wrong.
public enum QualityFlag: String, Sendable, Codable, CaseIterable {
    /// |yaw| beyond `ReliabilityLimits.maximumYaw`.
    case headTurned
    /// |pitch| beyond `ReliabilityLimits.maximumPitch`.
    case headTilted
    /// Interocular distance under `ReliabilityLimits.minimumInterocularDistance`.
    case faceTooSmall
    /// Brightness under `ReliabilityLimits.minimumBrightness`.
    case faceTooDark
    /// Less than `ReliabilityLimits.minimumInsideFrame` of the face inside the frame.
    case partlyOutOfFrame
    /// In a stream, the face's neutral baseline has seen less than `BaselineOptions.warmUp` seconds of its
    /// reliable frames: its expressions (and the emoji and emotions on them) are read against too little of
    /// its own face. Studies leave these frames out of curves, baselines, features and tests.
    case settling
}
