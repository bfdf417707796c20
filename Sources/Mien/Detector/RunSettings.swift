/// How one run of a `Detector` goes, apart from what it measures (`DetectorOptions`): how many frames it
/// reads, where an earlier run that ended early left off, and how often it keeps its state for a later resume.
///
/// Validated at creation; given to `Detector(source:options:settings:)` for `start()`, or to each
/// `run(writers:settings:)`.
public struct RunSettings: Sendable, Equatable {
    /// Sources the detector reads itself (files, cameras): stop after this many frames of the source,
    /// processed or not.
    ///
    /// nil (default) reads to the end (a camera: until `stop()`). At least 1.
    public let maximumFrames: Int?
    /// Sources the detector reads itself: continue a run that ended early (see `ResumePoint`).
    ///
    /// Default nil: start at the first frame with face ID 0.
    public package(set) var resume: ResumePoint?
    /// With `resume`: the analysis state after `resume.afterFrame`, restored instead of analysing the earlier
    /// frames again (a video or continuous pictures; `AnalysisSnapshot`).
    package var restoring: RestoredAnalysis?
    /// Seconds (wall clock) between analysis snapshots, 0: after every frame; nil (default): none.
    ///
    /// A video or continuous pictures hand them to the writers that keep one (`SnapshotKeeping`).
    package var snapshotInterval: Double?
    /// A stream's faces start from this neutral baseline instead of an empty one (a study participant's, learnt at
    /// their framing check: issue 95 item 1); nil (default): empty, each face settles over its first second.
    package var neutralStart: NeutralBaseline.Carried?

    /// - Throws: `.invalidOptions` for a `maximumFrames` below 1.
    public init(maximumFrames: Int? = nil, resume: ResumePoint? = nil) throws {
        if let maximumFrames, maximumFrames < 1 {
            throw MienError(.invalidOptions, "maximumFrames must be at least 1, got \(maximumFrames)")
        }
        self.init(checked: maximumFrames, resume: resume)
    }

    private init(checked maximumFrames: Int?, resume: ResumePoint?) {
        self.maximumFrames = maximumFrames
        self.resume = resume
    }

    /// Every frame, from the first, no snapshot.
    public static let standard = RunSettings(checked: nil, resume: nil)

    /// These settings as the text a manifest or a snapshot records beside `DetectorOptions.settings` (the
    /// resume point is left out: it says where a run started, not how frames were analysed).
    public var settings: [String: String] { ["maximumFrames": maximumFrames.map { "\($0)" } ?? "all"] }
}

/// What a run does about `RunSettings.resume`, decided once when the run is made: which frames it reads
/// again only to restore its state, which it skips, what it restores, and which faces it reports lost.
struct ResumePlan {
    /// A resumed stream's last frame already delivered: frames up to it are analysed again, not delivered.
    let replayUntil: Int?
    /// The state restored instead of analysing the earlier frames again.
    let restoring: AnalysisSnapshot?
    /// The first face ID handed out.
    let firstFaceId: Int
    /// Faces open at a break of pictures that stand alone, reported lost on the first result delivered.
    let lostAtBreak: [Int]
    /// The reader skips frames through this index (-1: none).
    let skipThrough: Int
    /// The reader skips frames through this timestamp (a restored stream), nil: none.
    let skipThroughTime: Double?

    /// - Parameters:
    ///   - stream: whether the frames are tracked as a stream.
    ///   - reads: whether the detector reads its source itself (only such a source can be read again).
    init(_ settings: RunSettings, stream: Bool, reads: Bool) {
        // A resumed stream goes on from its snapshot when it has one; without one it is analysed again from
        // its first frame, so its IDs start at 0 as the stopped run's did. Pictures that stand alone continue
        // after the last ID, read from the break on.
        let resumesStream = stream && reads && settings.resume != nil
        restoring = resumesStream ? settings.restoring?.snapshot : nil
        replayUntil = resumesStream && restoring == nil ? settings.resume?.afterFrame : nil
        firstFaceId = resumesStream ? 0 : settings.resume?.nextFaceId ?? 0
        lostAtBreak = replayUntil == nil && restoring == nil ? settings.resume?.openFaces ?? [] : []
        skipThrough = replayUntil != nil ? -1 : settings.resume?.afterFrame ?? -1
        skipThroughTime = replayUntil != nil ? nil : settings.restoring?.snapshot.timestamp
    }
}
