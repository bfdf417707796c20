/// What a metric its catalog entry measures (`MetricDescriptor.measured`) reads: one located and measured face,
/// as the stages left it.
///
/// Geometry is the pose-normalised face (`FaceFeatures`, canonical-model units, the face turned frontal), so a
/// measure does not depend on where the face is in the frame or how it is turned; blendshapes are MediaPipe's
/// 52 scores (0...1). Either is nil when its stage did not run or the pose could not be fitted.
package struct MeasuredFace: Sendable {
    private let face: TrackedFace

    init(_ face: TrackedFace) { self.face = face }

    /// The pose-normalised geometry (lip thickness, mouth width, lip gap, ...) the expression stage read, nil when
    /// it did not run or the pose could not be fitted.
    package var features: FaceFeatures? { face.features }

    /// MediaPipe's blendshape `name` (0...1), nil when the expression stage did not run.
    package func blendshape(_ name: String) -> Double? {
        face.blendshapes?[name]
    }
}
