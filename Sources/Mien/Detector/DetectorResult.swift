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
    /// The picture's file name within the folder, for a frame of a folder of pictures (`Frame.file`); nil
    /// for every other input.
    public var file: String?
    /// Position of the frame in its source, from 0.
    public var frameIndex: Int
    /// Seconds on the source's clock.
    public var timestamp: Double
    /// Frame size in pixels (nil only in results made by hand).
    public var width: Int?
    /// Frame height in pixels (nil only in results made by hand).
    public var height: Int?
    /// Faces keyed by `faceId`; nil for an unprocessed frame, empty when no face is seen.
    public var faces: [Int: FaceResult]?
    /// Faces found, returned and lost on this frame, in the order they happened (streams only).
    public var events: [FaceEvent]
    /// The face with the largest box (by area), nil when the frame has none or was not processed.
    public var largestFace: FaceResult? {
        faces?.values.max { ($0.faceBounds.area, $1.faceId) < ($1.faceBounds.area, $0.faceId) }
    }
    /// Faces first seen in this frame (Affdex `onFaceDetectionStarted`), returns included.
    public var found: [Int] {
        events.compactMap {
            switch $0 {
            case .found(let id), .returned(let id): id
            case .lost: nil
            }
        }
    }
    /// Faces no longer seen from this frame on (Affdex `onFaceDetectionStopped`).
    public var lost: [Int] { events.compactMap { if case .lost(let id) = $0 { id } else { nil } } }
    /// The faces of `found` that are returns: seen before, lost, and re-identified under their old IDs
    /// (`DetectorOptions.reidentification`); nil when there is none.
    public var returned: [Int]? {
        let ids = events.compactMap { if case .returned(let id) = $0 { id } else { nil } }
        return ids.isEmpty ? nil : ids
    }
    /// Whether a shot cut comes before this frame (streams; `DetectorOptions.shotCutThreshold`): the faces
    /// seen before it are all in `lost`.
    public var shotCut: Bool = false
    /// Episodes of the faces' metrics (and blinks) that started or finished on this frame, in face and metric order.
    ///
    /// Streams only (`DetectorOptions.episodes`). Episodes still open when the input ends are reported finished to
    /// the delegate and the writers at its end, not in a frame.
    public var episodes: [EpisodeEvent] = []
    /// EnableX FaceAI's face-count stream; streams' processed frames only.
    public var faceCount: FaceCount?
    /// From the frame's arrival in the detector's inbox to the delivery of this result.
    ///
    /// Nil in results made by hand or read back. Not part of the JSON form or of equality: it describes the run, not the frame.
    public var latency: Duration?

    enum CodingKeys: String, CodingKey {
        case input, file, frameIndex, timestamp, width, height, faces, found, lost, returned, shotCut, episodes,
            faceCount
    }

    /// Equal frames, faces and events; the order of events of different kinds is not compared (the JSON
    /// form lists found, lost and returned apart).
    public static func == (left: DetectorResult, right: DetectorResult) -> Bool {
        left.input == right.input && left.file == right.file && left.frameIndex == right.frameIndex
            && left.timestamp == right.timestamp
            && left.width == right.width && left.height == right.height && left.faces == right.faces
            && left.found == right.found && left.lost == right.lost && left.returned == right.returned
            && left.faceCount == right.faceCount && left.episodes == right.episodes
            && left.shotCut == right.shotCut
    }

    /// A result with its events in order.
    public init(
        input: String? = nil, frameIndex: Int, timestamp: Double, width: Int? = nil, height: Int? = nil,
        faces: [Int: FaceResult]?, events: [FaceEvent], shotCut: Bool = false, episodes: [EpisodeEvent] = [],
        faceCount: FaceCount? = nil
    ) {
        self.input = input
        self.frameIndex = frameIndex
        self.timestamp = timestamp
        self.width = width
        self.height = height
        self.faces = faces
        self.events = events
        self.shotCut = shotCut
        self.episodes = episodes
        self.faceCount = faceCount
    }

    /// The result of a frame that was not analysed (`faces` nil).
    ///
    /// Dropped for a newer one, left out by the rate cap, or not decoded; the one place such a result is made.
    init(unprocessed frame: Frame) {
        self.init(
            frameIndex: frame.index, timestamp: frame.timestamp, width: frame.width, height: frame.height, faces: nil)
    }

    /// The result of an encoded frame that was not analysed: never decoded, so its size is not known.
    init(unprocessed encoded: EncodedFrame) {
        self.init(frameIndex: encoded.index, timestamp: encoded.timestamp, faces: nil)
    }

    /// A result with its events as the JSON form lists them: IDs found (`returned` among them), then lost.
    public init(
        input: String? = nil, frameIndex: Int, timestamp: Double, width: Int? = nil, height: Int? = nil,
        faces: [Int: FaceResult]?, found: [Int] = [], lost: [Int] = [], returned: [Int]? = nil,
        shotCut: Bool = false, episodes: [EpisodeEvent] = [], faceCount: FaceCount? = nil
    ) {
        let returns = Set(returned ?? [])
        self.init(
            input: input, frameIndex: frameIndex, timestamp: timestamp, width: width, height: height, faces: faces,
            events: found.map { returns.contains($0) ? .returned(faceId: $0) : .found(faceId: $0) }
                + lost.map { .lost(faceId: $0) }, shotCut: shotCut, episodes: episodes, faceCount: faceCount)
    }

    /// Reads the JSON form: the events are rebuilt from `found`, `returned` and `lost`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            input: try container.decodeIfPresent(String.self, forKey: .input),
            frameIndex: try container.decode(Int.self, forKey: .frameIndex),
            timestamp: try container.decode(Double.self, forKey: .timestamp),
            width: try container.decodeIfPresent(Int.self, forKey: .width),
            height: try container.decodeIfPresent(Int.self, forKey: .height),
            faces: try container.decodeIfPresent([Int: FaceResult].self, forKey: .faces),
            found: try container.decode([Int].self, forKey: .found),
            lost: try container.decode([Int].self, forKey: .lost),
            returned: try container.decodeIfPresent([Int].self, forKey: .returned),
            shotCut: try container.decodeIfPresent(Bool.self, forKey: .shotCut) ?? false,
            episodes: try container.decodeIfPresent([EpisodeEvent].self, forKey: .episodes) ?? [],
            faceCount: try container.decodeIfPresent(FaceCount.self, forKey: .faceCount))
        file = try container.decodeIfPresent(String.self, forKey: .file)
    }

    /// Writes the JSON form (`Schema/detector-result.schema.json`): events as `found`, `lost` and `returned`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(input, forKey: .input)
        try container.encodeIfPresent(file, forKey: .file)
        try container.encode(frameIndex, forKey: .frameIndex)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encodeIfPresent(faces, forKey: .faces)
        try container.encode(found, forKey: .found)
        try container.encode(lost, forKey: .lost)
        try container.encodeIfPresent(returned, forKey: .returned)
        if shotCut { try container.encode(true, forKey: .shotCut) }
        // Absent when empty, so a frame without episodes reads as it did before episodes existed.
        if !episodes.isEmpty { try container.encode(episodes, forKey: .episodes) }
        try container.encodeIfPresent(faceCount, forKey: .faceCount)
    }

    /// Whether the frame was analysed.
    public var processed: Bool { faces != nil }
}
