/// Affdex's detector listeners in one protocol.
///
/// Every method has an empty default; callbacks arrive on
/// the detector's processing thread (for cameras and video files) or on the caller's thread (for
/// `process(_:)`), in frame order: `didFind` for a face before the `didProcess` of its first frame, and
/// `didLose` after the last frame it was in.
public protocol DetectorDelegate: AnyObject, Sendable {
    /// A new face (Affdex `onFaceDetectionStarted`).
    func detector(_ detector: Detector, didFind face: FaceResult)
    /// A face seen before, lost, and now back under its old ID (re-identification,
    /// `DetectorOptions.reidentification`), in place of `didFind`. By default it calls `didFind`.
    func detector(_ detector: Detector, didFindReturning face: FaceResult)
    /// A face is no longer seen (Affdex `onFaceDetectionStopped`).
    func detector(_ detector: Detector, didLoseFace faceId: Int)
    /// Every frame's result, processed or not (Affdex `onImageResults`).
    func detector(_ detector: Detector, didProcess result: DetectorResult)
    /// An episode of a face's metric, or a blink, started or finished (`DetectorResult.episodes`), after the
    /// `didProcess` of its frame; the episodes still open when the input ends finish before
    /// `detectorDidFinishProcessing`.
    func detector(_ detector: Detector, didUpdate episode: EpisodeEvent)
    /// The end of a video file or of a `.file` source (Affdex `onProcessingFinished`); never for cameras,
    /// pictures or pushed frames.
    func detectorDidFinishProcessing(_ detector: Detector)
    /// A frame or the source failed; for cameras and files processing stops after this.
    func detector(_ detector: Detector, didFail error: MienError)
    /// An item could not be read or analysed (a picture of a folder, a pushed frame nobody waited for in
    /// `process(_:)`, a live frame that would not decode); the input goes on.
    func detector(_ detector: Detector, couldNotRead error: MienError)
}

extension DetectorDelegate {
    public func detector(_ detector: Detector, didFind face: FaceResult) {}
    public func detector(_ detector: Detector, didFindReturning face: FaceResult) {
        self.detector(detector, didFind: face)
    }
    public func detector(_ detector: Detector, didLoseFace faceId: Int) {}
    public func detector(_ detector: Detector, didProcess result: DetectorResult) {}
    public func detector(_ detector: Detector, didUpdate episode: EpisodeEvent) {}
    public func detectorDidFinishProcessing(_ detector: Detector) {}
    public func detector(_ detector: Detector, didFail error: MienError) {}
    public func detector(_ detector: Detector, couldNotRead error: MienError) {}
}
