/// A stage that finds faces in a frame.
///
/// - Important: Implementations hold neural networks and are not reentrant: one call at a time.
public protocol FaceDetecting: AnyObject {
    /// The faces in `frame`, most confident first, in frame pixels.
    func detect(in frame: Frame) throws -> [FaceDetection]
}
