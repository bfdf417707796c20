import Mien
import MienStatistics

/// A stimulus's moments: peaks of its curves, responses against baseline, differences between groups.
///
/// Nothing is marked or tested below the panel sizes at which it can be (docs/studies.md, "Panel sizes"): a
/// permutation test over fewer people cannot reach p < 0.05 however strong the effect, so a note says "not
/// testable" and why, rather than "0 found".
extension StudyContext {
    /// Participants each group needs for a difference: 4 + 4 can be split 70 ways, p ≥ 2/70 = 0.029.
    static let differenceMinimum = 4
    /// Participants a group needs for a response: 6 people's signs flip 64 ways, p ≥ 2/64 = 0.031.
    static let responseMinimum = 6

    private var method: String { settings.correction == .cluster ? "cluster-permutation" : "fdr-permutation" }

    /// The peaks of one curve that stand clear of it.
    ///
    /// The rule: a local maximum of the group's mean curve with a topographic prominence of at least
    /// `peakProminence`, whose 95 % interval (Student's, over participants) lies wholly above the interval at the
    /// higher of its two bases (the lowest points between it and higher ground on either side). Its time and
    /// height get 95 % percentile intervals from bootstrap resamples of the participants, the peak found again in
    /// each resample between the same bases.
    func peaks(_ points: [StudyCurvePoint], group: StudyGroup) -> [StudyMoment] {
        // A peak's intervals resample the participants: a group below the page's minimum for a band has none.
        guard group.members.count >= settings.minimumParticipants else { return [] }
        let means = points.map(\.mean)
        let lifted = Peaks.find(means).filter { peak in
            guard peak.prominence >= settings.peakProminence else { return false }
            let base =
                (means[peak.leftBase] ?? -.infinity) >= (means[peak.rightBase] ?? -.infinity)
                ? peak.leftBase : peak.rightBase
            guard let low = points[peak.index].low, let baseHigh = points[base].high else { return false }
            return low > baseHigh
        }
        return lifted.sorted { (means[$0.index] ?? 0) > (means[$1.index] ?? 0) }
            .prefix(settings.peaksPerCurve).sorted { $0.index < $1.index }
            .map { peak in
                let point = points[peak.index]
                let (times, heights) = bootstrap(peak, metric: point.metric, group: group)
                return StudyMoment(
                    stimulus: stimulus, kind: .peak, metric: point.metric, group: group.name, otherGroup: nil,
                    start: point.time, end: point.time + settings.bin, time: point.time, value: point.mean ?? 0,
                    low: Descriptive.quantile(heights, 0.025), high: Descriptive.quantile(heights, 0.975),
                    timeLow: Descriptive.quantile(times, 0.025), timeHigh: Descriptive.quantile(times, 0.975), p: nil,
                    mass: nil, method: "bootstrap", permutations: settings.permutations,
                    episodeShare: point.episodeShare)
            }
    }

    /// The peak's time and height in bootstrap resamples of the group's participants.
    private func bootstrap(_ peak: Peaks.Peak, metric: String, group: StudyGroup) -> ([Double], [Double]) {
        let span = min(peak.leftBase, peak.rightBase)...max(peak.leftBase, peak.rightBase)
        let rows = group.members.map { member in span.map { member.value(metric, bin: $0) } }
        var generator = SeededGenerator(
            seed: settings.permutationSettings(
                family: "\(stimulus)\u{1F}\(group.name)\u{1F}\(metric)\u{1F}\(peak.index)"
            )
            .seed)
        var times: [Double] = []
        var heights: [Double] = []
        for _ in 0..<settings.permutations {
            let sample = (0..<rows.count).map { _ in rows[generator.below(rows.count)] }
            var best: (bin: Int, value: Double)?
            for offset in 0..<span.count {
                let values = sample.compactMap { $0[offset] }
                guard !values.isEmpty else { continue }
                let mean = values.reduce(0, +) / Double(values.count)
                if best == nil || mean > (best?.value ?? 0) { best = (span.lowerBound + offset, mean) }
            }
            if let best {
                times.append(time(best.bin))
                heights.append(best.value)
            }
        }
        return (times, heights)
    }

    /// When the group responds: each participant's change from their own baseline, tested per bin after it
    /// with sign-flip permutations, the group's metrics one family.
    func responses(_ group: StudyGroup) -> ([StudyMoment], String) {
        let label = "\(stimulus), \(group.name)"
        guard settings.baseline > 0 else { return ([], "\(label): no response test (baseline 0)") }
        let baselineBins = (0..<binCount).filter { time($0) < settings.baseline - 1e-9 }.count
        // The baseline window never lies inside settling (issue 95): it starts at the bin from which the median
        // participant's face had settled (0 with footage of the face before the onset);
        // a participant not settled by its end has no baseline and leaves the test (their curve still counts).
        let settled = group.members.map { $0.firstSettledBin(bin: settings.bin) }.sorted()
        let from = settled.isEmpty ? 0 : settled[(settled.count - 1) / 2]
        let firstTested = from + baselineBins
        guard baselineBins > 0, firstTested < binCount else {
            let why =
                from > 0
                ? "the stimulus ends before its \(Self.seconds(settings.baseline)) s baseline after the faces settled at \(Self.seconds(time(from))) s"
                : "the stimulus is no longer than its \(Self.seconds(settings.baseline)) s baseline"
            return ([], "\(label): no response test (\(why))")
        }
        guard group.members.count >= Self.responseMinimum else {
            return (
                [],
                "\(label): responses not testable: \(group.name) has \(group.members.count) (a response needs \(Self.responseMinimum) participants to reach p < 0.05); no peak marked below \(settings.minimumParticipants)"
            )
        }
        let tested = binCount - firstTested
        var changes: [SeriesMatrix] = []
        for metric in metrics {
            let rows = group.members.map { member -> [Double?] in
                let base = (from..<firstTested).compactMap { member.value(metric, bin: $0) }
                guard !base.isEmpty else { return [] }
                let level = base.reduce(0, +) / Double(base.count)
                return (firstTested..<binCount).map { bin in member.value(metric, bin: bin).map { $0 - level } }
            }
            changes.append(SeriesMatrix(rows, columns: tested))
        }
        let outcome = BaselineComparison(changes: changes).run(
            settings.permutationSettings(family: "\(stimulus)\u{1F}\(group.name)\u{1F}responses"))
        var moments: [StudyMoment] = []
        for finding in outcome.findings where finding.p < settings.alpha {
            let span = (finding.start + firstTested)...(finding.end + firstTested)
            guard Double(span.count) * settings.bin >= settings.minimumDifference - 1e-9 else { continue }
            let change = changes[finding.member]
            let figures = span.map { bin in
                (bin, Descriptive.meanInterval((0..<change.rows).compactMap { change[$0, bin - firstTested] }))
            }
            guard let (bin, figure) = figures.max(by: { abs($0.1.mean ?? 0) < abs($1.1.mean ?? 0) }) else { continue }
            moments.append(
                StudyMoment(
                    stimulus: stimulus, kind: .response, metric: metrics[finding.member], group: group.name,
                    otherGroup: nil, start: time(span.lowerBound), end: time(span.upperBound + 1), time: time(bin),
                    value: figure.mean ?? 0, low: figure.low, high: figure.high, timeLow: nil, timeHigh: nil,
                    p: finding.p, mass: finding.mass, method: method, permutations: outcome.permutations,
                    episodeShare: nil))
        }
        let note =
            "\(label): responses against each participant's first \(Self.seconds(settings.baseline)) s\(from > 0 ? " after \(Self.seconds(time(from))) s (the faces settling before)" : "") tested over \(metrics.count) metrics × \(tested) bins, \(Self.describe(outcome, of: "sign flips")); \(moments.count) found at α = \(Self.seconds(settings.alpha))"
        return (moments, note)
    }

    /// Where the named groups differ: every pair of groups of `differenceMinimum` or more participants, every
    /// metric, one family.
    func differences(_ groups: [StudyGroup]) -> ([StudyMoment], String) {
        let minimum = Self.differenceMinimum
        let testable = groups.filter { $0.members.count >= minimum }
        let small = groups.filter { $0.members.count < minimum }.map { "\($0.name) has \($0.members.count)" }
        let smallNote =
            small.isEmpty
            ? "" : "; not testable: \(small.joined(separator: ", ")) (a difference needs \(minimum) per group)"
        guard testable.count >= 2 else {
            guard groups.count >= 2 else {
                return ([], "\(stimulus): no difference tested (\(groups.count) group\(groups.count == 1 ? "" : "s"))")
            }
            return (
                [],
                "\(stimulus): differences not testable: \(small.joined(separator: ", ")) (a difference needs \(minimum) participants in each of two groups to reach p < 0.05)"
            )
        }
        let pairs = testable.indices.flatMap { first in
            testable.indices.filter { $0 > first }.map { (first, $0) }
        }
        let members = testable.flatMap(\.members)
        let labels = testable.enumerated().flatMap { index, group in Array(repeating: index, count: group.members.count)
        }
        let test = GroupComparison(
            series: metrics.map { matrix(members, metric: $0) }, labels: labels, groupCount: testable.count,
            pairs: pairs)
        let outcome = test.run(settings.permutationSettings(family: "\(stimulus)\u{1F}differences"))
        var moments: [StudyMoment] = []
        for finding in outcome.findings where finding.p < settings.alpha {
            guard Double(finding.end - finding.start + 1) * settings.bin >= settings.minimumDifference - 1e-9 else {
                continue
            }
            let metric = metrics[finding.member / pairs.count]
            let (first, second) = pairs[finding.member % pairs.count]
            let figures = (finding.start...finding.end).compactMap { bin in
                Descriptive.welch(
                    values(testable[first].members, metric: metric, bin: bin),
                    values(testable[second].members, metric: metric, bin: bin)
                ).map { (bin, $0) }
            }
            guard let (bin, figure) = figures.max(by: { abs($0.1.difference) < abs($1.1.difference) }) else { continue }
            moments.append(
                StudyMoment(
                    stimulus: stimulus, kind: .difference, metric: metric, group: testable[first].name,
                    otherGroup: testable[second].name, start: time(finding.start), end: time(finding.end + 1),
                    time: time(bin), value: figure.difference, low: figure.low, high: figure.high, timeLow: nil,
                    timeHigh: nil, p: finding.p, mass: finding.mass, method: method,
                    permutations: outcome.permutations, episodeShare: nil))
        }
        let names = testable.map(\.name).joined(separator: ", ")
        let note =
            "\(stimulus): differences between \(names) tested over \(metrics.count) metrics × \(pairs.count) pair\(pairs.count == 1 ? "" : "s") × \(binCount) bins, \(Self.describe(outcome, of: "relabellings")); \(moments.count) found at α = \(Self.seconds(settings.alpha))\(smallNote)"
        return (moments, note)
    }

    static func describe(_ outcome: PermutationOutcome, of what: String) -> String {
        outcome.exact
            ? "every one of the \(outcome.permutations) \(what) (exact)"
            : "\(outcome.permutations) random \(what)"
    }

    static func seconds(_ value: Double) -> String { ResultTable.number(value, places: 3) }
}
