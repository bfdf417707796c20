/// The rows of a study's tables (`curves.csv`, `moments.csv`, `isc.csv`, `segments.csv`), as values.

/// One bin of one metric's curve for one group watching one stimulus.
public struct StudyCurvePoint: Sendable, Codable, Equatable {
    public var stimulus: String
    /// The manifest's group, or `all` for the whole panel.
    public var group: String
    /// The catalog name (`expressions.smile`).
    public var metric: String
    /// The bin's start, seconds of stimulus time (the bin is [time, time + bin)).
    public var time: Double
    /// Included participants with the face measured in the bin.
    public var n: Int
    /// Mean over those participants of each one's mean in the bin.
    public var mean: Double?
    /// The 95 % interval of that mean over participants (Student's t with n − 1 degrees of freedom); nil
    /// below 2 participants.
    public var low: Double?
    public var high: Double?
    /// The share (0...1) of those participants in an episode of the metric for at least half of their frames
    /// in the bin; nil when no episode tracker followed the metric.
    public var episodeShare: Double?
}

/// A moment of a stimulus: a peak of a curve, or a stretch where two groups differ.
public struct StudyMoment: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// A local maximum of a group's mean curve, prominent by `StudySettings.peakProminence`.
        case peak
        /// Consecutive bins where the 95 % interval of `group`'s mean minus `otherGroup`'s excludes 0, lasting
        /// `StudySettings.minimumDifference` or more (Welch's interval).
        case difference
    }
    public var stimulus: String
    public var kind: Kind
    public var metric: String
    public var group: String
    /// The group compared with (differences only).
    public var otherGroup: String?
    /// The stretch, seconds of stimulus time (a peak: its bin).
    public var start: Double
    public var end: Double
    /// The bin of the peak, or of the largest difference.
    public var time: Double
    /// The curve's mean there, or the difference of the means.
    public var value: Double
    /// The difference's 95 % interval there (differences only).
    public var low: Double?
    public var high: Double?
    /// The share of participants in an episode there (peaks of followed metrics only).
    public var episodeShare: Double?
}

/// The inter-subject correlation of one metric for one group and stimulus: each participant's binned series
/// correlated (Pearson) with the mean of the others' (leave-one-out), averaged over participants.
public struct StudyCorrelation: Sendable, Codable, Equatable {
    public var stimulus: String
    public var group: String
    public var metric: String
    /// Participants with a correlation (3 or more bins shared with the others, neither series constant).
    public var n: Int
    /// The mean of their correlations; nil when n is 0.
    public var isc: Double?
    /// Participant to their leave-one-out correlation.
    public var participants: [String: Double]
}

/// A named scene of a stimulus (`--segments`): [start, end) seconds of stimulus time.
public struct StudySegment: Sendable, Codable, Equatable {
    public var stimulus: String
    public var name: String
    public var start: Double
    public var end: Double

    public init(stimulus: String, name: String, start: Double, end: Double) {
        self.stimulus = stimulus
        self.name = name
        self.start = start
        self.end = end
    }
}

/// One metric over one segment for one group: each participant's mean over the bins that start within the
/// segment, then the mean and 95 % interval over participants, and the mean share in episode.
public struct StudySegmentFigure: Sendable, Codable, Equatable {
    public var stimulus: String
    public var segment: String
    public var group: String
    public var metric: String
    public var n: Int
    public var mean: Double?
    public var low: Double?
    public var high: Double?
    public var episodeShare: Double?
}
