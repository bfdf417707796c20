public import MienCore

/// One frame of EnableX FaceAI's face-count stream, as a `DetectorResult` carries it (see `FaceCounter`).
public struct FaceCount: Sendable, Equatable, Codable {
    /// INIT until a count has settled, TRACK_OK, RECOVERING after a face was lost.
    public var status: FaceCounter.Status
    /// The smoothed number of faces: changes only after a new count has held `FaceCounter.settleTime`.
    public var totalFaces: Int
    /// The previous `totalFaces`, only on the frame where it changed (EnableX `totalFacesChangedFrom`).
    public var totalFacesChangedFrom: Int?
    /// Whether the detector ran on the whole frame; on other frames faces come from tracking alone.
    public var fullFrameDetection: Bool

    /// A face-count update as EnableX reports it.
    public init(status: FaceCounter.Status, totalFaces: Int, totalFacesChangedFrom: Int?, fullFrameDetection: Bool) {
        self.status = status
        self.totalFaces = totalFaces
        self.totalFacesChangedFrom = totalFacesChangedFrom
        self.fullFrameDetection = fullFrameDetection
    }

    init(_ update: FaceCounter.Update, fullFrameDetection: Bool) {
        self.init(
            status: update.status, totalFaces: update.totalFaces,
            totalFacesChangedFrom: update.totalFacesChangedFrom, fullFrameDetection: fullFrameDetection)
    }
}
