import Mien
import MienStatistics

/// A study aggregated: every participant's series and the figures over them, per stimulus on stimulus time
/// (`mien study`; `docs/studies.md`).
///
/// Made from `ParticipantSeries` alone (read back from the recordings' files), so the command line, Python
/// and tests aggregate the same way. The tests behind its moments and correlations correct for the many bins,
/// metrics and groups they look at (`StudySettings.correction`), and say in `notes` what they did not test.
public struct Study: Sendable, Codable {
    public var settings: StudySettings
    /// Every manifest row's participant, included or not, in the manifest's order.
    public var participants: [ParticipantSeries]
    public var curves: [StudyCurvePoint]
    /// The attention curve of each stimulus and group (`viewers.onScreen`: the share of viewers watching, percent,
    /// with Wilson's 95 % interval); empty where no frame measured `onScreen`.
    public var attention: [StudyCurvePoint]
    /// The retention curve of each skippable stimulus and group (Kaplan-Meier); empty where nobody skipped.
    public var retention: [StudyRetentionPoint]
    /// The log-rank test of each skippable stimulus's groups.
    public var retentionTests: [StudyRetentionTest]
    /// Peaks, responses and differences; responses and differences only where their corrected p is below alpha.
    public var moments: [StudyMoment]
    public var correlations: [StudyCorrelation]
    public var segments: [StudySegmentFigure]
    /// What each stimulus's tests covered (the family, the permutations), and what was not tested and why.
    public var notes: [String]
    /// What study.html's summary says of each stimulus's answers (a collected study with scale questions), by
    /// stimulus: `AnswerSummary.lines`.
    package var answerSummary: [String: [String]] = [:]
    /// Each stimulus's figures placed against a norm (`mien study --norms`): norms.csv's rows; empty without one.
    package var normComparison: [NormComparison.Row] = []
    /// What study.html's summary says of the norm, by stimulus (`NormComparison.lines`).
    package var normSummary: [String: [String]] = [:]
    /// Each stimulus's key figures (a collected study): kpis.csv's rows (`StudyKPIs`); empty otherwise.
    package var kpis: [StudyKPIs.Row] = []
    /// Adverts compared within participants and groups within each stimulus: comparisons.csv's rows
    /// (`StudyComparisons`); empty otherwise.
    package var comparisons: [StudyComparisons.Row] = []
    /// The weights of `mien study --weight` (`StudyWeighting`); nil: unweighted.
    package var weighting: StudyWeighting.Weights?
    /// Pictures of each stimulus along its time axis (a collected study whose folder keeps the stimulus), by stimulus.
    package var stimulusPictures: [String: [StimulusStrip.Picture]] = [:]

    /// The figures a study is made of; what the page alone shows (its summary's words about answers, the stimulus's
    /// pictures) is not coded.
    private enum CodingKeys: String, CodingKey {
        case settings, participants, curves, attention, retention, retentionTests, moments, correlations, segments
        case notes
    }

    /// The stimuli, in the order the manifest first names them.
    public var stimuli: [String] {
        var seen = Set<String>()
        return participants.map(\.row.stimulus).filter { seen.insert($0).inserted }
    }

    /// Aggregates `participants` (the excluded ones are listed, not counted).
    public init(participants: [ParticipantSeries], settings: StudySettings, segments: [StudySegment] = []) {
        self.settings = settings
        self.participants = participants
        curves = []
        attention = []
        retention = []
        retentionTests = []
        moments = []
        correlations = []
        self.segments = []
        notes = []
        for stimulus in stimuli {
            let panel = participants.filter { $0.row.stimulus == stimulus && $0.included }
            guard !panel.isEmpty else {
                notes.append("\(stimulus): no participant included, nothing aggregated")
                continue
            }
            let groupNames = Set(panel.compactMap(\.row.group)).sorted()
            let groups: [StudyGroup] =
                [StudyGroup(name: StudyManifest.wholePanel, members: panel)]
                + groupNames.map { name in StudyGroup(name: name, members: panel.filter { $0.row.group == name }) }
            let binCount = panel.map(\.binCount).max() ?? 0
            let present = Set(panel.flatMap(\.bins.keys))
            let metrics = StudyRecordingReader.scored.map(\.name).filter(present.contains)
            // Whether people watched is charted, not tested: the tests' error control is over the responses.
            let context = StudyContext(
                stimulus: stimulus, metrics: metrics.filter { !MetricCatalog.viewing.contains($0) },
                binCount: binCount, settings: settings)
            // Retention counts every viewer who started the stimulus, included or not: a skipper the viewing rules
            // excluded still skipped, at their skip time (issue 95: they vanished, and retention read high).
            let started = participants.filter { $0.row.stimulus == stimulus }
            var leaving: [(String, [Survival.Viewer])] = []
            for group in groups {
                let viewers = StudyRetention.viewers(
                    group.name == StudyManifest.wholePanel ? started : started.filter { $0.row.group == group.name })
                retention += StudyRetention.points(
                    stimulus: stimulus, group: group.name, viewers: viewers, binCount: binCount, bin: settings.bin)
                if group.name != StudyManifest.wholePanel { leaving.append((group.name, viewers)) }
                attention += StudyAttention.points(
                    stimulus: stimulus, group: group.name, members: group.members, binCount: binCount,
                    bin: settings.bin)
                for metric in metrics {
                    let points = (0..<binCount).map { bin in
                        context.point(group: group, metric: metric, bin: bin)
                    }
                    curves += points
                    if !MetricCatalog.viewing.contains(metric) { moments += context.peaks(points, group: group) }
                    for segment in segments where segment.stimulus == stimulus {
                        self.segments.append(context.figure(segment, group: group, metric: metric))
                    }
                }
                let (responses, responseNote) = context.responses(group)
                moments += responses
                notes.append(responseNote)
                let (figures, correlationNote) = context.correlations(group)
                correlations += figures
                notes.append(correlationNote)
            }
            if let test = StudyRetention.test(stimulus: stimulus, groups: leaving) { retentionTests.append(test) }
            let (differences, differenceNote) = context.differences(Array(groups.dropFirst()))
            moments += differences
            notes.append(differenceNote)
        }
        // One log-rank test per skippable stimulus: their false discoveries held at alpha together (Benjamini-Hochberg).
        retentionTests = StudyRetention.corrected(retentionTests)
        for test in retentionTests {
            notes.append(
                "\(test.stimulus): whether the groups skip at the same rate: log-rank test, chi-square "
                    + "\(ResultTable.number(test.statistic, places: 2)) with \(test.degrees) degree(s) of freedom, p = "
                    + "\(ResultTable.number(test.p, places: 4)) (Benjamini-Hochberg over the study's \(retentionTests.count) "
                    + "retention test(s); uncorrected \(ResultTable.number(test.uncorrectedP, places: 4)))")
        }
    }
}

/// A group of a stimulus's panel (`all` for the whole panel).
struct StudyGroup {
    var name: String
    var members: [ParticipantSeries]
}

/// One stimulus's aggregation: what its curves, moments and correlations share.
struct StudyContext {
    var stimulus: String
    var metrics: [String]
    var binCount: Int
    var settings: StudySettings

    func time(_ bin: Int) -> Double { Double(bin * settings.binMilliseconds) / 1000 }

    func values(_ members: [ParticipantSeries], metric: String, bin: Int) -> [Double] {
        members.compactMap { $0.value(metric, bin: bin) }
    }

    /// The group's series of `metric`, a row per member.
    func matrix(_ members: [ParticipantSeries], metric: String) -> SeriesMatrix {
        SeriesMatrix(members.map { $0.bins[metric] ?? [] }, columns: binCount)
    }

    func point(group: StudyGroup, metric: String, bin: Int) -> StudyCurvePoint {
        let values = values(group.members, metric: metric, bin: bin)
        let (mean, low, high) = Descriptive.meanInterval(values)
        let shares = group.members.compactMap { $0.episodeShare(metric, bin: bin) }
        let followed = group.members.contains { $0.episodeBins[metric] != nil }
        let share: Double? =
            followed && !shares.isEmpty ? Double(shares.filter { $0 >= 0.5 }.count) / Double(shares.count) : nil
        return StudyCurvePoint(
            stimulus: stimulus, group: group.name, metric: metric, time: time(bin), n: values.count, mean: mean,
            low: low, high: high, episodeShare: share)
    }

    func figure(_ segment: StudySegment, group: StudyGroup, metric: String) -> StudySegmentFigure {
        let bins = (0..<binCount).filter { time($0) >= segment.start - 1e-9 && time($0) < segment.end - 1e-9 }
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
        let perParticipant = group.members.compactMap { member in
            mean(bins.compactMap { member.value(metric, bin: $0) })
        }
        let shares = group.members.compactMap { member in
            mean(bins.compactMap { member.episodeShare(metric, bin: $0) })
        }
        let (value, low, high) = Descriptive.meanInterval(perParticipant)
        return StudySegmentFigure(
            stimulus: segment.stimulus, segment: segment.name, group: group.name, metric: metric,
            n: perParticipant.count, mean: value, low: low, high: high, episodeShare: mean(shares))
    }

    /// How far the group's mean curve of `metric` moves over the stimulus (its highest bin minus its lowest), in
    /// the metric's points; nil with fewer than 2 bins measured.
    func curveRange(_ group: StudyGroup, metric: String) -> Double? {
        let means = (0..<binCount).compactMap { bin -> Double? in
            let values = values(group.members, metric: metric, bin: bin)
            return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        }
        guard means.count >= 2, let low = means.min(), let high = means.max() else { return nil }
        return high - low
    }

    /// The inter-subject correlations of a group, its metrics one family.
    ///
    /// Only metrics whose group curve moves by at least the study's `minimumEffect` are tested (issue 95: six still
    /// faces shared a drift of half a point, the neutral baseline adapting, and "correlated" at p = 0.02): a shared
    /// time course smaller than a response the report would state is not a shared response. The others are
    /// listed with the reason, outside the family the correction runs over.
    func correlations(_ group: StudyGroup) -> ([StudyCorrelation], String) {
        let ranges = metrics.map { curveRange(group, metric: $0) }
        let sized = zip(metrics, ranges).filter { ($0.1 ?? 0) >= settings.minimumEffect - 1e-9 }.map(\.0)
        let test = IntersubjectCorrelation(
            series: sized.map { matrix(group.members, metric: $0) }, minimumBins: settings.iscMinimumBins)
        let family = settings.permutationSettings(family: "\(stimulus)\u{1F}\(group.name)\u{1F}isc")
        let figures = Dictionary(
            zip(sized, test.run(samples: settings.permutations, seed: family.seed)), uniquingKeysWith: { a, _ in a })
        let rows = zip(metrics, ranges).map { metric, range -> StudyCorrelation in
            guard let figure = figures[metric] else {
                let moved = range.map { "moves \(Self.seconds($0)) points" } ?? "is measured in fewer than 2 bins"
                return StudyCorrelation(
                    stimulus: stimulus, group: group.name, metric: metric, n: 0, isc: nil, p: nil, uncorrectedP: nil,
                    low: nil, high: nil, bins: 0,
                    reason:
                        "not tested: the group's curve \(moved), less than the \(Self.seconds(settings.minimumEffect))-point minimum effect (--min-effect)",
                    participants: [:])
            }
            var found: [String: Double] = [:]
            for (member, r) in zip(group.members, figure.participants) {
                if let r { found[member.row.participant] = r }
            }
            return StudyCorrelation(
                stimulus: stimulus, group: group.name, metric: metric, n: found.count, isc: figure.isc, p: figure.p,
                uncorrectedP: figure.uncorrectedP, low: figure.low, high: figure.high, bins: figure.bins,
                reason: figure.reason, participants: found)
        }
        let tested = rows.filter { $0.isc != nil }.count
        let note =
            tested == 0
            ? "\(stimulus), \(group.name): no ISC (\(rows.first?.reason ?? "no metric"))"
            : "\(stimulus), \(group.name): ISC of \(tested) metrics against \(settings.permutations) circular shifts, p corrected over those metrics (the largest standardized ISC under each shift); intervals from \(settings.permutations) bootstrap resamples of the participants"
        return (rows, note)
    }
}
