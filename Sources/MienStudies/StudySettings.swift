import Mien
package import MienStatistics

/// How a study is aggregated and tested (`mien study`'s options), validated at creation.
public struct StudySettings: Sendable, Equatable, Codable {
    /// How the many tests of a stimulus (every bin of every metric, every pair of groups) are corrected.
    public enum Correction: String, Sendable, Codable, CaseIterable {
        /// Cluster-based permutation test: controls the family-wise error rate (the chance of reporting any
        /// difference or response when there is none) at `alpha`. The default.
        case cluster
        /// Per-bin permutation p-values with Benjamini–Hochberg: controls the false discovery rate (the expected
        /// share of reported bins that are false) at `alpha`. Finds more, promises less.
        case fdr
    }

    /// Which of a participant's exposures to a stimulus a collected study reads (issue 95 item 2): every viewing is
    /// an exposure, and a page shows a stimulus again when a viewing was measured too little or interrupted.
    public enum Exposure: String, Sendable, Codable, CaseIterable {
        /// The first exposure measured enough (the one kept), its viewing rules judged over all the exposures.
        /// The default.
        case firstComplete = "first-complete"
        /// Only viewers whose first exposure was measured enough: one shown the stimulus again is excluded from it
        /// (a pre-test's strict first view: a replay is a second viewing).
        case firstOnly = "first-only"
    }

    /// Width of the time bins, seconds of stimulus time (1 ms steps).
    ///
    /// Default 1 s: Affdex's market-research dashboards plot per second; an expression episode lasts a
    /// second or more, so 1 s bins keep its shape; and at webcam rates (15-30 fps) a bin averages 15-30
    /// frames, which smooths the frame-to-frame noise without a filter.
    public var bin: Double
    /// The least share (0...1) of the stimulus's time in which the participant's face must be measured for
    /// the participant to be included.
    public var minimumFaceShare: Double
    /// Seconds a difference or response must last to be listed, on top of the test (default 0: the test alone
    /// decides; a longer minimum only removes short findings, it never adds one).
    public var minimumDifference: Double
    /// How far (score points) a peak of a curve must rise above the higher of its two bases (topographic
    /// prominence) to be considered; it must also stand clear of its base (`Study` documents the rule).
    public var peakProminence: Double
    /// The most peaks listed per curve, highest first.
    public var peaksPerCurve: Int
    /// The error rate the tests control (family-wise with `.cluster`, false discovery with `.fdr`).
    public var alpha: Double
    /// Permutations (sign flips, label shuffles, circular shifts) and bootstrap resamples per family, the
    /// observed data counted among them; every distinct relabelling instead when there are no more (exact).
    ///
    /// Default 1000: the smallest p it can give is 0.001, and a p near 0.05 is known to about ±0.007.
    public var permutations: Int
    /// The seed of every random draw: the same seed gives the same study, bit for bit.
    public var seed: UInt64
    public var correction: Correction
    /// Seconds at the start of the stimulus that are each participant's baseline for `response` moments.
    ///
    /// Default 1 s: a panel collected in a browser has no footage before the stimulus, and footage before it
    /// shows whatever preceded it (instructions, another advert), so each participant's own first second is
    /// the one baseline every panel has; faces take about half a second to react to what they see.
    public var baseline: Double
    /// The fewest bins measured in 2 or more participants for an inter-subject correlation (default 10:
    /// below that a correlation of a few points says little and the shift null has too few distinct shifts).
    public var iscMinimumBins: Int
    /// The fewest participants in a bin for its interval to be drawn on the page; curves with fewer are
    /// marked thin (default 5: with fewer, Student's interval is more than twice the standard error).
    public var minimumParticipants: Int
    /// The metrics study.html charts, in order; empty: those with the most significant moments.
    public var charts: [String]
    /// The study's name, shown at the top of its page (nil: "Study").
    public var title: String?
    /// Whether the curves, tests and correlations read every frame of the participant's face (`mien study
    /// --all-frames`).
    ///
    /// Default false: frames where the viewer did not watch are left out, those with `onScreen` below 50 or their
    /// eyes shut past a blink (`eyesClosed`); frames that measured neither (no gaze measured) stay. The viewing
    /// metrics' own curves and the attention curve read every frame either way.
    public var allFrames = false
    /// The smallest effect the study page charts, in the metric's points (its 0-100 scale; valence's -100...100):
    /// a response or a difference that passes its test but changes the mean by less is kept in `moments.csv` and
    /// not drawn, listed or used to choose charts (`mien study --min-effect`; default 5).
    public var minimumEffect = 5.0
    /// The least share (0...1) of the stimulus's time the responses must read for the participant's curves and
    /// features of that stimulus.
    ///
    /// The frames read are those watched (unless `allFrames`) and settled (`mien study --min-watched`; nil:
    /// `defaultMinimumWatchedShare`, 0.25): below it the participant is excluded from that
    /// stimulus, saying so, rather than entering the means from a few frames at full weight (issue 95 item 6).
    /// Optional so that a study.json written before it still reads.
    public var minimumWatched: Double?
    public static let defaultMinimumWatchedShare = 0.25
    /// The least difference from a norm's median an arrow needs, in the norm's standard deviations over its stimuli.
    ///
    /// `mien study --norm-min-difference`; nil: 0.5, half the spread between stimuli. A figure that the
    /// test finds different but by less is placed without an arrow (issue 95 item 5). Optional so that a study.json
    /// written before it still reads.
    public var normMinimum: Double?
    /// `normMinimum`, or its default 0.5.
    public var normMinimumSpread: Double { normMinimum ?? 0.5 }
    /// Which exposure a collected study reads.
    ///
    /// `mien study --exposure`; nil: `.firstComplete`. Optional so that a study.json written before it still reads.
    public var exposure: Exposure?
    /// `minimumWatched`, or its default.
    public var minimumWatchedShare: Double { minimumWatched ?? Self.defaultMinimumWatchedShare }
    /// What each group is, in words ("Women 18-34"), by group: study.html names groups with them (`--group-label`).
    public var groupLabels: [String: String] = [:]
    /// Moments of the stimuli drawn on every chart and kept in `marks.csv` (`--marks`), sorted by stimulus and time.
    public var marks: [StudyMark] = []

    /// The defaults `mien study` uses.
    public static let standard = StudySettings(
        checkedBin: 1, minimumFaceShare: 0.5, minimumDifference: 0, peakProminence: 10, peaksPerCurve: 3,
        alpha: 0.05, permutations: 1000, seed: 1, correction: .cluster, baseline: 1, iscMinimumBins: 10,
        minimumParticipants: 5, charts: [])

    /// - Throws: `.invalidArgument` naming the setting out of range.
    public init(
        bin: Double = standard.bin, minimumFaceShare: Double = standard.minimumFaceShare,
        minimumDifference: Double = standard.minimumDifference, peakProminence: Double = standard.peakProminence,
        peaksPerCurve: Int = standard.peaksPerCurve, alpha: Double = standard.alpha,
        permutations: Int = standard.permutations, seed: UInt64 = standard.seed,
        correction: Correction = standard.correction, baseline: Double = standard.baseline,
        iscMinimumBins: Int = standard.iscMinimumBins, minimumParticipants: Int = standard.minimumParticipants,
        charts: [String] = standard.charts
    ) throws {
        guard bin.isFinite, bin >= 0.001, bin <= 3600 else {
            throw MienError(.invalidArgument, "the bin must be within 0.001...3600 seconds (got \(bin))")
        }
        guard abs((bin * 1000).rounded() - bin * 1000) < 1e-6 else {
            throw MienError(.invalidArgument, "the bin must be a whole number of milliseconds (got \(bin))")
        }
        guard minimumFaceShare.isFinite, (0...1).contains(minimumFaceShare) else {
            throw MienError(.invalidArgument, "the minimum face share must be within 0...1 (got \(minimumFaceShare))")
        }
        guard minimumDifference.isFinite, minimumDifference >= 0 else {
            throw MienError(.invalidArgument, "the minimum difference must be 0 or more seconds")
        }
        guard peakProminence.isFinite, peakProminence >= 0 else {
            throw MienError(.invalidArgument, "the peak prominence must be 0 or more")
        }
        guard peaksPerCurve >= 0 else { throw MienError(.invalidArgument, "peaks per curve must be 0 or more") }
        guard alpha.isFinite, alpha > 0, alpha < 1 else {
            throw MienError(.invalidArgument, "alpha must be within 0...1, exclusive (got \(alpha))")
        }
        guard (100...1_000_000).contains(permutations) else {
            throw MienError(.invalidArgument, "permutations must be within 100...1000000 (got \(permutations))")
        }
        guard baseline.isFinite, baseline >= 0 else {
            throw MienError(.invalidArgument, "the baseline must be 0 or more seconds (0: no response test)")
        }
        guard iscMinimumBins >= 3 else { throw MienError(.invalidArgument, "the ISC needs at least 3 bins") }
        guard minimumParticipants >= 2 else {
            throw MienError(.invalidArgument, "the minimum participants for an interval must be 2 or more")
        }
        self.init(
            checkedBin: bin, minimumFaceShare: minimumFaceShare, minimumDifference: minimumDifference,
            peakProminence: peakProminence, peaksPerCurve: peaksPerCurve, alpha: alpha, permutations: permutations,
            seed: seed, correction: correction, baseline: baseline, iscMinimumBins: iscMinimumBins,
            minimumParticipants: minimumParticipants, charts: charts)
    }

    private init(
        checkedBin bin: Double, minimumFaceShare: Double, minimumDifference: Double, peakProminence: Double,
        peaksPerCurve: Int, alpha: Double, permutations: Int, seed: UInt64, correction: Correction,
        baseline: Double, iscMinimumBins: Int, minimumParticipants: Int, charts: [String]
    ) {
        self.bin = bin
        self.minimumFaceShare = minimumFaceShare
        self.minimumDifference = minimumDifference
        self.peakProminence = peakProminence
        self.peaksPerCurve = peaksPerCurve
        self.alpha = alpha
        self.permutations = permutations
        self.seed = seed
        self.correction = correction
        self.baseline = baseline
        self.iscMinimumBins = iscMinimumBins
        self.minimumParticipants = minimumParticipants
        self.charts = charts
    }

    /// The bin in whole milliseconds: times are compared on the millisecond grid the CSV files are written on,
    /// so a bin holds the same frames whether it is computed here or from the CSV.
    public var binMilliseconds: Int { Int(saturating: bin * 1000) }

    /// The permutation settings of one family, its seed mixed with the family's name so that families draw
    /// independent permutations while the study as a whole reproduces from `seed`.
    package func permutationSettings(family: String) -> PermutationSettings {
        // FNV-1a over the name's UTF-8: stable across runs and platforms, unlike Hasher.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in family.utf8 { hash = (hash ^ UInt64(truncatingIfNeeded: byte)) &* 0x100_0000_01B3 }
        return PermutationSettings(
            alpha: alpha, permutations: permutations, seed: seed ^ hash,
            correction: correction == .cluster ? .cluster : .fdr)
    }
}
