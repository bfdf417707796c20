/// A study aggregated: every participant's series and the figures over them, per stimulus on stimulus time
/// (`mien study`; `docs/studies.md`).
///
/// Made from `ParticipantSeries` alone (read back from the recordings' files), so the command line, Python
/// and tests aggregate the same way.
public struct Study: Sendable, Codable {
    public var settings: StudySettings
    /// Every manifest row's participant, included or not, in the manifest's order.
    public var participants: [ParticipantSeries]
    public var curves: [StudyCurvePoint]
    public var moments: [StudyMoment]
    public var correlations: [StudyCorrelation]
    public var segments: [StudySegmentFigure]

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
        moments = []
        correlations = []
        self.segments = []
        for stimulus in stimuli {
            let panel = participants.filter { $0.row.stimulus == stimulus && $0.included }
            guard !panel.isEmpty else { continue }
            let groupNames = Set(panel.compactMap(\.row.group)).sorted()
            let groups =
                [(StudyManifest.wholePanel, panel)]
                + groupNames.map { name in (name, panel.filter { $0.row.group == name }) }
            let binCount = panel.map(\.binCount).max() ?? 0
            let present = Set(panel.flatMap(\.bins.keys))
            let metrics = StudyRecordingReader.scored.map(\.name).filter(present.contains)
            for metric in metrics {
                var means: [String: [StudyCurvePoint]] = [:]
                for (group, members) in groups {
                    let points = (0..<binCount).map { bin in
                        point(stimulus: stimulus, group: group, metric: metric, bin: bin, members: members)
                    }
                    means[group] = points
                    curves += points
                    moments += peaks(points)
                    correlations.append(correlation(stimulus: stimulus, group: group, metric: metric, members: members))
                    for segment in segments where segment.stimulus == stimulus {
                        self.segments.append(figure(segment, group: group, metric: metric, members: members))
                    }
                }
                for (index, (first, firstMembers)) in groups.enumerated().dropFirst() {
                    for (second, secondMembers) in groups.dropFirst(index + 1) {
                        moments += differences(
                            stimulus: stimulus, metric: metric, groups: (first, second),
                            members: (firstMembers, secondMembers), binCount: binCount)
                    }
                }
            }
        }
    }

    private func time(_ bin: Int) -> Double { Double(bin * settings.binMilliseconds) / 1000 }

    private func values(_ members: [ParticipantSeries], metric: String, bin: Int) -> [Double] {
        members.compactMap { $0.value(metric, bin: bin) }
    }

    private func point(
        stimulus: String, group: String, metric: String, bin: Int, members: [ParticipantSeries]
    ) -> StudyCurvePoint {
        let values = values(members, metric: metric, bin: bin)
        let (mean, low, high) = StudyStatistics.meanInterval(values)
        let shares = members.compactMap { $0.episodeShare(metric, bin: bin) }
        let followed = members.contains { $0.episodeBins[metric] != nil }
        let share: Double? =
            followed && !shares.isEmpty ? Double(shares.filter { $0 >= 0.5 }.count) / Double(shares.count) : nil
        return StudyCurvePoint(
            stimulus: stimulus, group: group, metric: metric, time: time(bin), n: values.count, mean: mean, low: low,
            high: high, episodeShare: share)
    }

    private func peaks(_ points: [StudyCurvePoint]) -> [StudyMoment] {
        let found = StudyStatistics.peaks(points.map(\.mean)).filter { $0.prominence >= settings.peakProminence }
        return found.sorted { (points[$0.index].mean ?? 0) > (points[$1.index].mean ?? 0) }
            .prefix(settings.peaksPerCurve).sorted { $0.index < $1.index }
            .map { peak in
                let point = points[peak.index]
                return StudyMoment(
                    stimulus: point.stimulus, kind: .peak, metric: point.metric, group: point.group, otherGroup: nil,
                    start: point.time, end: point.time + settings.bin, time: point.time, value: point.mean ?? 0,
                    low: nil, high: nil, episodeShare: point.episodeShare)
            }
    }

    private func differences(
        stimulus: String, metric: String, groups: (String, String),
        members: ([ParticipantSeries], [ParticipantSeries]), binCount: Int
    ) -> [StudyMoment] {
        let figures = (0..<binCount).map { bin in
            StudyStatistics.difference(
                values(members.0, metric: metric, bin: bin), values(members.1, metric: metric, bin: bin))
        }
        func sign(_ bin: Int) -> Int {
            guard let figure = figures[bin] else { return 0 }
            return figure.low > 0 ? 1 : figure.high < 0 ? -1 : 0
        }
        var moments: [StudyMoment] = []
        var bin = 0
        while bin < binCount {
            let direction = sign(bin)
            guard direction != 0 else {
                bin += 1
                continue
            }
            var end = bin
            while end + 1 < binCount, sign(end + 1) == direction { end += 1 }
            let span = bin...end
            if Double(span.count) * settings.bin >= settings.minimumDifference - 1e-9,
                let largest = span.max(by: { abs(figures[$0]?.value ?? 0) < abs(figures[$1]?.value ?? 0) }),
                let figure = figures[largest]
            {
                moments.append(
                    StudyMoment(
                        stimulus: stimulus, kind: .difference, metric: metric, group: groups.0, otherGroup: groups.1,
                        start: time(bin), end: time(end + 1), time: time(largest), value: figure.value,
                        low: figure.low, high: figure.high, episodeShare: nil))
            }
            bin = end + 1
        }
        return moments
    }

    private func correlation(
        stimulus: String, group: String, metric: String, members: [ParticipantSeries]
    ) -> StudyCorrelation {
        var found: [String: Double] = [:]
        for (index, member) in members.enumerated() {
            guard let own = member.bins[metric] else { continue }
            let others = members.enumerated().filter { $0.offset != index }.map(\.element)
            var pairs: [(Double, Double)] = []
            for bin in own.indices {
                guard let value = own[bin] else { continue }
                let rest = values(others, metric: metric, bin: bin)
                if !rest.isEmpty { pairs.append((value, rest.reduce(0, +) / Double(rest.count))) }
            }
            if let r = StudyStatistics.correlation(pairs) { found[member.row.participant] = r }
        }
        return StudyCorrelation(
            stimulus: stimulus, group: group, metric: metric, n: found.count,
            isc: found.isEmpty ? nil : found.values.reduce(0, +) / Double(found.count), participants: found)
    }

    private func figure(
        _ segment: StudySegment, group: String, metric: String, members: [ParticipantSeries]
    ) -> StudySegmentFigure {
        let bins = (0..<(members.map(\.binCount).max() ?? 0)).filter {
            time($0) >= segment.start - 1e-9 && time($0) < segment.end - 1e-9
        }
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
        let perParticipant = members.compactMap { member in
            mean(bins.compactMap { member.value(metric, bin: $0) })
        }
        let shares = members.compactMap { member in
            mean(bins.compactMap { member.episodeShare(metric, bin: $0) })
        }
        let (value, low, high) = StudyStatistics.meanInterval(perParticipant)
        return StudySegmentFigure(
            stimulus: segment.stimulus, segment: segment.name, group: group, metric: metric,
            n: perParticipant.count, mean: value, low: low, high: high, episodeShare: mean(shares))
    }
}
