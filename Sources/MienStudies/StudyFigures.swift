/// The rows of a study's tables (`curves.csv`, `moments.csv`, `isc.csv`, `segments.csv`), as values.
import Mien

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

/// A moment of a stimulus: a peak, a response against baseline, or a difference between groups.
///
/// Responses and differences are reported only when their corrected p is below
/// the study's alpha (`StudySettings.correction`); `docs/studies.md` says what each means.
public struct StudyMoment: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// A local maximum of a group's mean curve, prominent by `StudySettings.peakProminence`, whose 95 %
        /// interval lies wholly above the interval at the higher of its two bases.
        case peak
        /// Consecutive bins where a group's change from its own baseline (`StudySettings.baseline`) is
        /// significant: a sign-flip permutation test with its error corrected over time and metrics.
        case response
        /// Consecutive bins where `group` and `otherGroup` differ: a permutation test of the group labels with its
        /// error corrected over time, metrics and pairs of groups.
        case difference
    }
    public var stimulus: String
    public var kind: Kind
    public var metric: String
    public var group: String
    /// The group compared with (differences only).
    public var otherGroup: String?
    /// The stretch, seconds of stimulus time: [start, end) (a peak: its bin).
    public var start: Double
    public var end: Double
    /// The bin of the peak, or of the largest difference or change.
    public var time: Double
    /// The peak's height; the largest difference of the means (`group` − `otherGroup`); the largest mean
    /// change from baseline.
    public var value: Double
    /// The 95 % interval of `value`: a peak's over bootstrap resamples of the participants; a difference's
    /// (Welch) or change's (Student) at `time`, descriptive, not corrected.
    public var low: Double?
    public var high: Double?
    /// A peak's 95 % bootstrap interval for its time, seconds of stimulus time.
    public var timeLow: Double?
    public var timeHigh: Double?
    /// The corrected p of a response or difference.
    public var p: Double?
    /// The cluster's mass (sum of its t statistics) or, with FDR, the sum of the t of its bins.
    public var mass: Double?
    /// How `p` (or a peak's intervals) was found: `cluster-permutation`, `fdr-permutation` or `bootstrap`.
    public var method: String?
    /// Permutations or bootstrap resamples behind it (every distinct relabelling when the test is exact).
    public var permutations: Int?
    /// The share of participants in an episode there (peaks of followed metrics only).
    public var episodeShare: Double?
}

/// The inter-subject correlation of one metric for one group and stimulus: each participant's binned series
/// correlated (Pearson) with the mean of the others' (leave-one-out), averaged over participants, with its p
/// against circularly shifted series and its bootstrap interval.
public struct StudyCorrelation: Sendable, Codable, Equatable {
    public var stimulus: String
    public var group: String
    public var metric: String
    /// Participants with a correlation (3 or more bins shared with the others, neither series constant).
    public var n: Int
    /// The mean of their correlations; nil with a `reason`.
    public var isc: Double?
    /// The p of `isc` against the shift null, corrected over the group's metrics (the largest ISC of any metric
    /// under each shift).
    public var p: Double?
    /// This metric's own p, for one metric chosen before looking.
    public var uncorrectedP: Double?
    /// The 95 % bootstrap interval of `isc` over participants.
    public var low: Double?
    public var high: Double?
    /// Bins measured in 2 or more participants.
    public var bins: Int
    /// Why there is no ISC (too few bins or participants).
    public var reason: String?
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
