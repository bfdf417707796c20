/// A `Detector`'s result for one frame: the faces by `faceId`, or nil when the frame was not processed
/// (left out by `maxProcessRate`, or dropped because a live source delivered frames faster than they could
/// be analysed), as Affdex reports unprocessed frames.
///
/// The one per-frame result of Mien: the library returns it, and every writer (JSON Lines, CSV, summary,
/// report, annotation) and the command line's `detect` and `analyze` print it; its JSON form is
/// described by `Schema/detector-result.schema.json`.
public struct DetectorResult: Sendable, Equatable, Codable {
    /// The input the frame comes from (a file or folder path, a camera device, a live source's name);
    /// nil for pictures and frames given with `process(_:)`.
    public var input: String?
    /// Position of the frame in its source, from 0.
    public var frameIndex: Int
    /// Seconds on the source's clock.
    public var timestamp: Double
    /// Frame size in pixels (nil only in results made by hand).
    public var width: Int?
    public var height: Int?
    /// Faces keyed by `faceId`; nil for an unprocessed frame, empty when no face is seen.
    public var faces: [Int: FaceResult]?
    /// Faces first seen in this frame (Affdex `onFaceDetectionStarted`).
    public var found: [Int]
    /// Faces no longer seen from this frame on (Affdex `onFaceDetectionStopped`).
    public var lost: [Int]
    /// The faces of `found` that are returns: seen before, lost, and re-identified under their old IDs
    /// (`DetectorOptions.reidentification`); nil when there is none.
    public var returned: [Int]?
    /// EnableX FaceAI's face-count stream; streams' processed frames only.
    public var faceCount: FaceCount?
    /// From the frame's arrival in the detector's inbox to the delivery of this result.
    ///
    /// Nil in results made by hand or read back. Not part of the JSON form or of equality: it describes the run, not the frame.
    public var latency: Duration?

    enum CodingKeys: String, CodingKey {
        case input, frameIndex, timestamp, width, height, faces, found, lost, returned, faceCount
    }

    public static func == (left: DetectorResult, right: DetectorResult) -> Bool {
        left.input == right.input && left.frameIndex == right.frameIndex && left.timestamp == right.timestamp
            && left.width == right.width && left.height == right.height && left.faces == right.faces
            && left.found == right.found && left.lost == right.lost && left.returned == right.returned
            && left.faceCount == right.faceCount
    }

    public init(
        input: String? = nil, frameIndex: Int, timestamp: Double, width: Int? = nil, height: Int? = nil,
        faces: [Int: FaceResult]?, found: [Int] = [], lost: [Int] = [], returned: [Int]? = nil,
        faceCount: FaceCount? = nil
    ) {
        self.input = input
        self.frameIndex = frameIndex
        self.timestamp = timestamp
        self.width = width
        self.height = height
        self.faces = faces
        self.found = found
        self.lost = lost
        self.returned = returned
        self.faceCount = faceCount
    }

    /// Whether the frame was analysed.
    public var processed: Bool { faces != nil }
}
