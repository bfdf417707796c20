/// A `Detector`'s result for one frame: the faces by `faceId`, or nil when the frame was not processed
/// (skipped by `maxProcessRate`, or dropped because a live source delivered frames faster than they could
/// be analysed), as Affdex reports unprocessed frames.
public struct DetectorResult: Sendable, Equatable, Codable {
    /// Position of the frame in its source, from 0.
    public var frameIndex: Int
    /// Seconds on the source's clock.
    public var timestamp: Double
    /// Faces keyed by `faceId`; nil for an unprocessed frame, empty when no face is seen.
    public var faces: [Int: FaceResult]?
    /// Faces first seen in this frame (Affdex `onFaceDetectionStarted`).
    public var found: [Int]
    /// Faces no longer seen from this frame on (Affdex `onFaceDetectionStopped`).
    public var lost: [Int]

    public init(frameIndex: Int, timestamp: Double, faces: [Int: FaceResult]?, found: [Int] = [], lost: [Int] = []) {
        self.frameIndex = frameIndex
        self.timestamp = timestamp
        self.faces = faces
        self.found = found
        self.lost = lost
    }

    /// Whether the frame was analysed.
    public var processed: Bool { faces != nil }
}
