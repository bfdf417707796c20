/// The face recognition network behind re-identification (`FaceRecognitionNetwork` in MienVision; fakes
/// in tests).
///
/// Two steps, so that a blurred chip is rejected before the network runs on it.
package protocol FaceRecognizing: AnyObject {
    /// The aligned chip (`RecognitionChip.side` pixels square, BGR like every `Frame`) that
    /// `chipFromFrame` (frame pixels → chip pixels, `RecognitionChip.chipFromFrame(ibug68:)`) cuts out of
    /// `frame`.
    func chip(of frame: Frame, chipFromFrame: AffineTransform) throws -> Frame
    /// The descriptor of a chip made by `chip(of:chipFromFrame:)`.
    func descriptor(ofChip chip: Frame) throws -> FaceDescriptor
}
