/// How a permutation test is run and read: the error rate, the number of permutations, the seed and the
/// correction over time bins.
package struct PermutationSettings: Sendable, Equatable {
    /// How the tests of one family (every time bin of every metric, and every pair of groups) are corrected.
    package enum Correction: String, Sendable, Codable, CaseIterable {
        /// Cluster-based permutation test (Maris & Oostenveld 2007): neighbouring bins whose t exceeds the
        /// cluster-forming threshold form clusters; each cluster's mass (the sum of its t) is compared with the
        /// largest cluster mass anywhere in the family under each permutation. Controls the family-wise error
        /// rate: the chance of reporting any cluster when nothing differs is at most α.
        case cluster
        /// Each bin's permutation p-value (|t| against the permutations' |t| in the same bin), then
        /// Benjamini–Hochberg over every bin of the family. Controls the false discovery rate: on average at most a
        /// share α of the bins reported are false.
        case fdr
    }

    /// The error rate controlled (family-wise for `.cluster`, false discovery for `.fdr`).
    package var alpha: Double
    /// Permutations, the observed labelling counted among them (as MNE-Python counts); every distinct
    /// relabelling instead when there are no more than this many (an exact test).
    package var permutations: Int
    package var seed: UInt64
    package var correction: Correction
    /// The two-sided p of a bin's t that forms clusters (MNE-Python's default threshold is this at 0.05).
    package var clusterFormingP: Double

    package init(
        alpha: Double = 0.05, permutations: Int = 1000, seed: UInt64 = 1, correction: Correction = .cluster,
        clusterFormingP: Double = 0.05
    ) {
        self.alpha = alpha
        self.permutations = permutations
        self.seed = seed
        self.correction = correction
        self.clusterFormingP = clusterFormingP
    }
}

/// What a permutation test over a family found: every observed cluster (or run of bins, with FDR) and its p.
package struct PermutationOutcome: Sendable, Equatable {
    /// A stretch of consecutive bins of one family member where the statistic exceeds the threshold in one
    /// direction.
    package struct Finding: Sendable, Equatable {
        /// The member of the family (a metric, or a metric and a pair of groups).
        package var member: Int
        /// First and last bin (inclusive).
        package var start: Int
        package var end: Int
        /// +1 when the statistic is positive (the first group higher; above baseline), −1 below.
        package var sign: Int
        /// The sum of the statistic over the stretch.
        package var mass: Double
        /// Corrected p: the share of permutations whose largest cluster mass in the family reaches this
        /// one's (cluster), or the largest Benjamini–Hochberg adjusted p of its bins (fdr).
        package var p: Double
    }

    package var findings: [Finding]
    /// The statistic per member and bin under the observed labelling (NaN where undefined).
    package var statistics: [[Double]]
    /// The permutations the p-values come from (the observed labelling included).
    package var permutations: Int
    /// Whether they are every distinct relabelling.
    package var exact: Bool
    /// The cluster-forming threshold per member (|t| above it).
    package var thresholds: [Double]
}
