public import MienCore

/// The face-finding stages a `Detector` runs instead of Mien's networks: scripted fakes in tests
/// (`MienTesting.ScriptedFaces`), or another detector and mesh implementation.
///
/// With custom stages no model is loaded: faces are found, meshed and tracked by them, and there is no head
/// pose, expression, emotion or appearance stage (those metrics are absent from results).
public struct DetectorStages: Sendable {
    /// Makes a fresh detector and mesher for one run of a detector (they need not be thread-safe: each run
    /// has its own).
    public var make:
        @Sendable (DetectionOptions) throws -> (detector: any FaceDetecting, mesher: any FaceMeshEstimating)

    /// Stages made by `make`, once per run of the detector.
    public init(
        make:
            @escaping @Sendable (DetectionOptions) throws -> (
                detector: any FaceDetecting, mesher: any FaceMeshEstimating
            )
    ) {
        self.make = make
    }
}
