import Mien
import MienStatistics

/// One bin of a skippable stimulus's retention curve for one group: how many were still watching at its start,
/// how many skipped within it, and Kaplan-Meier's share still watching at its end, with its 95 % band.
public struct StudyRetentionPoint: Sendable, Codable, Equatable {
    public var stimulus: String
    /// The manifest's group, or `all` for the whole panel.
    public var group: String
    /// The bin's start, seconds of stimulus time (the bin is [time, time + bin)).
    public var time: Double
    /// Viewers still watching at the bin's start.
    public var atRisk: Int
    /// Of them, those who skipped within the bin.
    public var skipped: Int
    /// Kaplan-Meier's share still watching at the bin's end, percent.
    public var retained: Double
    /// Its 95 % band (Greenwood on the log(-log) scale), percent; nil where undefined (nobody has left yet, or
    /// everyone has).
    public var low: Double?
    public var high: Double?
}

/// Whether a stimulus's groups skip at the same rate: the log-rank test.
public struct StudyRetentionTest: Sendable, Codable, Equatable {
    public var stimulus: String
    public var groups: [String]
    /// The log-rank statistic, chi-square with `degrees` degrees of freedom (groups − 1).
    public var statistic: Double
    public var degrees: Int
    /// The p corrected over the study's retention tests (Benjamini-Hochberg: false discoveries held at alpha).
    public var p: Double
    /// This test's own p, for one stimulus chosen before looking.
    public var uncorrectedP: Double
    /// `log-rank`.
    public var method: String
}

/// Retention for skippable stimuli: each collected viewer who started the stimulus (included or not: an excluded
/// skipper still skipped) is the time they skipped (left) or the stimulus's length (watched to the end: censored),
/// read from their page's viewing.
enum StudyRetention {
    /// The viewers of `members` whose page recorded the viewing; empty when none skipped (no retention to draw).
    static func viewers(_ members: [ParticipantSeries]) -> [Survival.Viewer] {
        let viewers = members.compactMap { member -> Survival.Viewer? in
            guard let viewing = member.row.viewing, let duration = member.row.duration else { return nil }
            if let skipped = viewing.skippedAt { return Survival.Viewer(time: min(skipped, duration), left: true) }
            return Survival.Viewer(time: duration, left: false)
        }
        return viewers.contains(where: \.left) ? viewers : []
    }

    /// The curve's points over `binCount` bins of `bin` seconds; none without viewers.
    static func points(
        stimulus: String, group: String, viewers: [Survival.Viewer], binCount: Int, bin: Double
    ) -> [StudyRetentionPoint] {
        guard !viewers.isEmpty else { return [] }
        let steps = Survival.kaplanMeier(viewers)
        let hazard = Survival.hazard(viewers, bin: bin, count: binCount)
        return (0..<binCount).map { index in
            // At the bin's end, just before the next bin starts: a skip exactly there belongs to the next.
            let end = Double(index + 1) * bin
            let step = steps.last { $0.time < end }
            return StudyRetentionPoint(
                stimulus: stimulus, group: group, time: Double(index) * bin, atRisk: hazard[index].atRisk,
                skipped: hazard[index].left, retained: 100 * (step?.retained ?? 1), low: step?.low.map { 100 * $0 },
                high: step?.high.map { 100 * $0 })
        }
    }

    /// The log-rank test of `groups` (name, viewers); nil with fewer than two groups with viewers.
    static func test(stimulus: String, groups: [(String, [Survival.Viewer])]) -> StudyRetentionTest? {
        let tested = groups.filter { !$0.1.isEmpty }
        guard tested.count >= 2, let result = Survival.logRank(tested.map(\.1)) else { return nil }
        return StudyRetentionTest(
            stimulus: stimulus, groups: tested.map(\.0), statistic: result.statistic, degrees: result.degrees,
            p: result.p, uncorrectedP: result.p, method: "log-rank")
    }

    /// `tests` with their p corrected together (Benjamini-Hochberg), each keeping its own as `uncorrectedP`.
    static func corrected(_ tests: [StudyRetentionTest]) -> [StudyRetentionTest] {
        let adjusted = BenjaminiHochberg.adjust(tests.map(\.uncorrectedP))
        return zip(tests, adjusted).map { test, p in
            var test = test
            test.p = p
            return test
        }
    }

    /// Where viewers leave fastest: up to three bins with the highest share of those still watching who skip in
    /// them (at least 2 skips), in time order.
    static func fastest(_ points: [StudyRetentionPoint]) -> [StudyRetentionPoint] {
        let candidates = points.filter { $0.skipped >= 2 && $0.atRisk > 0 }
        let ranked = candidates.sorted {
            (Double($0.skipped) / Double($0.atRisk), -$0.time) > (Double($1.skipped) / Double($1.atRisk), -$1.time)
        }
        return ranked.prefix(3).sorted { $0.time < $1.time }
    }
}
