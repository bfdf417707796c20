/// One participant's data for one stimulus, on stimulus time: their face's metrics binned, the share of each
/// bin spent in an episode, and whether they are included.
import Mien

public struct ParticipantSeries: Sendable, Codable {
    /// The manifest row.
    public var row: StudyManifest.Row
    /// The participant's face: the face ID seen in the most processed frames within the window (ties: the
    /// lower ID); nil when no face was seen there.
    public var faceId: Int?
    /// Processed frames within the stimulus window.
    public var frames: Int
    /// Of those, frames in which the participant's face was measured.
    public var faceFrames: Int
    /// The share (0...1) of the stimulus window with the participant's face measured: `faceFrames / frames`,
    /// scaled by the part of the stated duration the recording covers.
    public var faceShare: Double
    /// Distinct face IDs seen within the window.
    public var facesSeen: Int
    /// Processed frames within the window with more than one face (someone else in the picture).
    public var framesWithSeveralFaces: Int
    /// Why the participant is left out of the curves; nil when included.
    public var exclusion: String?
    /// Warnings that do not exclude (another face in the picture, a recording shorter than the stimulus).
    public var notes: [String]
    /// Bins of the window (the stimulus's bins this recording reaches).
    public var binCount: Int
    /// Catalog metric name (`expressions.smile`) to the mean of the face's values in each bin; nil where the
    /// face was not measured.
    public var bins: [String: [Double?]]
    /// Episode metric name to the share (0...1) of the face's frames in each bin within one of its episodes.
    ///
    /// Nil where the face was not measured. Only metrics an episode tracker followed.
    public var episodeBins: [String: [Double?]]
    /// Catalog metric name to the mean over the face's frames in the window.
    public var means: [String: Double]
    /// Episode metric name (`expressions.smile`, `blink`) to the number of the face's episodes whose onset lies
    /// within the window.
    public var episodeCounts: [String: Int]
    /// The share (0...1) of the stimulus the viewer watched.
    ///
    /// Of the processed frames in the window where it could be judged, those with the face looking at the screen (`onScreen` 50 or more, eyes not shut past a blink; a
    /// frame without the face counts as not watching), times the part of the stimulus the page was visible when the
    /// page recorded it. Nil when no frame measured `onScreen` (gaze off, an older recording).
    public var onScreenShare: Double?
    /// The same share per bin of the window (nil where no frame of the bin could be judged): what the attention
    /// curve counts.
    public var onScreenBins: [Double?]?
    /// The face's frames in the window flagged `settling` (its neutral baseline had not yet seen 1 s of it: at the
    /// start of a recording, or when a face comes back under a new ID): counted for viewing, left out of the
    /// expression curves, means, tests and the response baseline.
    public var settlingFrames: Int?
    /// Seconds from the onset from which the face's frames had settled, when the window began settling; nil when no
    /// frame of the window was settling, or none had settled by its end.
    public var settledAt: Double?

    /// The face's mean of `metric` in `bin`; nil where it was not measured or the recording does not reach.
    public func value(_ metric: String, bin: Int) -> Double? { Self.at(bin, of: bins[metric]) }

    /// The share of the face's frames in `bin` within an episode of `metric`; nil where not measured or not followed.
    public func episodeShare(_ metric: String, bin: Int) -> Double? { Self.at(bin, of: episodeBins[metric]) }

    private static func at(_ bin: Int, of series: [Double?]?) -> Double? {
        guard let series, series.indices.contains(bin) else { return nil }
        return series[bin]
    }

    /// Whether the participant counts in the curves.
    public var included: Bool { exclusion == nil }

    /// A participant with nothing read (the recording failed, the row could not be used).
    public init(row: StudyManifest.Row, exclusion: String) {
        self.row = row
        faceId = nil
        frames = 0
        faceFrames = 0
        faceShare = 0
        facesSeen = 0
        framesWithSeveralFaces = 0
        self.exclusion = exclusion
        notes = []
        binCount = 0
        bins = [:]
        episodeBins = [:]
        means = [:]
        episodeCounts = [:]
    }

    init(
        row: StudyManifest.Row, faceId: Int?, frames: Int, faceFrames: Int, faceShare: Double, facesSeen: Int,
        framesWithSeveralFaces: Int, exclusion: String?, notes: [String], binCount: Int, bins: [String: [Double?]],
        episodeBins: [String: [Double?]], means: [String: Double], episodeCounts: [String: Int],
        onScreenShare: Double? = nil, onScreenBins: [Double?]? = nil, settlingFrames: Int? = nil,
        settledAt: Double? = nil
    ) {
        self.row = row
        self.faceId = faceId
        self.frames = frames
        self.faceFrames = faceFrames
        self.faceShare = faceShare
        self.facesSeen = facesSeen
        self.framesWithSeveralFaces = framesWithSeveralFaces
        self.exclusion = exclusion
        self.notes = notes
        self.binCount = binCount
        self.bins = bins
        self.episodeBins = episodeBins
        self.means = means
        self.episodeCounts = episodeCounts
        self.onScreenShare = onScreenShare
        self.onScreenBins = onScreenBins
        self.settlingFrames = settlingFrames
        self.settledAt = settledAt
    }

    /// The first bin of width `bin` seconds whose frames have all settled: 0 when none was settling, past the
    /// last bin when the face never settled in the window.
    public func firstSettledBin(bin: Double) -> Int {
        guard let settlingFrames, settlingFrames > 0 else { return 0 }
        guard let settledAt else { return binCount }
        return Int(saturating: (settledAt / bin - 1e-9).rounded(.up))
    }
}
