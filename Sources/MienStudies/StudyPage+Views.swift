import Mien
import Mustache

/// What `StudyPageTemplate` shows, as plain values: numbers already formatted, text escaped by the template.
extension StudyPage {
    struct PageView {
        var title: String
        /// Participants included, the whole panel then each group ("all 12 · A 6 · B 6").
        var panelSizes: String
        /// The sample's profile by what the panel said of the participants ("age: 18-24 5 · 25-34 7"), one line
        /// per attribute; empty when the manifest had none.
        var profile: [TextView] = []
        var maxWidth: Int
        var bin: String
        var minimumParticipants: Int
        var minimumFaceShare: String
        var minimumWatchedShare: String
        var baseline: String
        var correction: String
        var permutations: Int
        var chartedPerStimulus: Int
        var minimumEffect: String
        var stimuli: [SectionView]
        /// The first screen: each stimulus's verdict (a collected study), then every closed question tallied.
        var verdicts: [VerdictView] = []
        var tallies: [TallyView] = []
        var hasTallies = false
        var talliesCount = 0
        /// Adverts compared within participants, and each stimulus's groups side by side (`StudyComparisons`).
        var contrasts: [ContrastView] = []
        var hasContrasts = false
        var groupTables: [GroupTableView] = []
        var alpha = ""
        var summaries: [SummaryView]
        var participants: [ParticipantView]
        var notes: [TextView]
        var generator: String
        var seed: UInt64
    }

    struct TextView {
        var text: String
    }

    /// One stimulus: its participants, legend and charted metrics.
    struct SectionView {
        var name: String
        var included: Int
        var panel: Int
        var hasCurves: Bool
        var chosenByStudy: Bool
        var legend: [HTMLReport.LegendView]
        /// The stimulus's marks, in words (drawn as lines on its charts).
        var marks: [TextView] = []
        var hasMarks = false
        /// The stimulus's pictures along the charts' time axis, as SVG (empty: none).
        var pictures = ""
        var hasPictures = false
        var viewing: ViewingView?
        var metrics: [MetricView]
    }

    /// One charted metric: its words, its charts (drawn), its moments and its strip.
    struct MetricView {
        var label: String
        var doc: String
        var metric: String
        var hasIsc: Bool
        var isc: String
        var hasNoIscReason: Bool
        var noIscReason: String
        var thin: Bool
        var chart: String
        var hasEpisodes: Bool
        var episodes: String
        var hasMoments: Bool
        var moments: [TextView]
        var strip: StripView?
    }

    struct ParticipantView {
        var participant: String
        var stimulus: String
        var group: String
        var faceShare: String
        var included: String
        var notes: String

        init(_ series: ParticipantSeries) {
            participant = series.row.participant
            stimulus = series.row.stimulus
            group = series.row.group ?? ""
            faceShare = number(series.faceShare * 100)
            included = series.exclusion.map { "no: " + $0 } ?? "yes"
            notes = series.notes.joined(separator: "; ")
        }
    }

    static func section(_ stimulus: String, study: Study, chart: MustacheTemplate) -> SectionView {
        let settings = study.settings
        let curves = study.curves.filter { $0.stimulus == stimulus }
        let panel = study.participants.filter { $0.row.stimulus == stimulus }
        let included = panel.filter(\.included)
        var view = SectionView(
            name: stimulus, included: included.count, panel: panel.count, hasCurves: !curves.isEmpty,
            chosenByStudy: !settings.charts.isEmpty, legend: [], viewing: nil, metrics: [])
        guard !curves.isEmpty else { return view }
        let groups = curves.reduce(into: [String]()) { if !$0.contains($1.group) { $0.append($1.group) } }
        view.legend = groups.enumerated().map {
            HTMLReport.LegendView(name: named($0.element, settings), colour: colour($0.offset))
        }
        // Responses and differences under the study's minimum effect stay in moments.csv, off the page.
        let moments = study.moments.filter { $0.stimulus == stimulus && shown($0, settings) }
        let charted = charted(stimulus, study: study)
        let binCount = curves.filter { $0.metric == charted.first && $0.group == StudyManifest.wholePanel }.count
        let end = Double(binCount) * settings.bin
        view.viewing = viewing(stimulus, study: study, end: end, groups: groups, chart: chart)
        let rules = settings.marks.filter { $0.stimulus == stimulus }
        view.marks = rules.map { TextView(text: "\($0.name) at \(number($0.time)) s") }
        view.hasMarks = !rules.isEmpty
        view.pictures = pictures(study.stimulusPictures[stimulus] ?? [], end: end)
        view.hasPictures = !view.pictures.isEmpty
        view.metrics = charted.map { metric in
            let isc = study.correlations.first {
                $0.stimulus == stimulus && $0.group == StudyManifest.wholePanel && $0.metric == metric
            }
            let entry = MetricCatalog.entry(named: metric)
            let range = entry?.range ?? 0...100
            let lines = curves.filter { $0.metric == metric }
            let marked = moments.filter { $0.metric == metric }
            var iscText = ""
            if let isc, let value = isc.isc {
                iscText =
                    number(value) + (isc.low.map { low in " [\(number(low)), \(number(isc.high ?? low))]" } ?? "")
                    + (isc.p.map { ", \(stated("p", $0))" } ?? "") + " (n = \(isc.n))"
            }
            let reason = iscText.isEmpty ? isc?.reason ?? "" : ""
            let hasEpisodes = lines.contains { $0.episodeShare != nil }
            return MetricView(
                label: label(metric), doc: entry?.doc ?? "", metric: metric, hasIsc: !iscText.isEmpty, isc: iscText,
                hasNoIscReason: !reason.isEmpty, noIscReason: reason,
                thin: lines.contains { $0.n > 0 && $0.n < settings.minimumParticipants },
                chart: StudyPage.chart(
                    label: metric, end: end, range: range, groups: groups, points: lines, value: \.mean, band: true,
                    moments: marked, bin: settings.bin, minimum: settings.minimumParticipants, template: chart,
                    rules: rules),
                hasEpisodes: hasEpisodes,
                episodes: hasEpisodes
                    ? StudyPage.chart(
                        label: metric + " episodes", end: end, range: 0...100, groups: groups, points: lines,
                        value: { $0.episodeShare.map { $0 * 100 } }, band: false, moments: [], bin: settings.bin,
                        minimum: settings.minimumParticipants, template: chart, rules: rules)
                    : "",
                hasMoments: !marked.isEmpty, moments: marked.map { TextView(text: words($0)) },
                strip: StripView(
                    metric, participants: included, groups: groups, range: range, bin: settings.bin, end: end))
        }
        return view
    }

    /// " [low, high]" of a moment's value (its 95 % interval at its time), or nothing when it has none.
    static func interval(_ moment: StudyMoment) -> String {
        guard let low = moment.low, let high = moment.high else { return "" }
        return " [\(signed(low)), \(signed(high))]"
    }

    /// A moment in words, with its p or interval.
    static func words(_ moment: StudyMoment) -> String {
        let span = "\(number(moment.start))–\(number(moment.end)) s"
        switch moment.kind {
        case .difference:
            return "\(moment.group) − \(moment.otherGroup ?? "") \(signed(moment.value))\(interval(moment)) at "
                + "\(number(moment.time)) s, differ \(span), \(stated("p", moment.p ?? 1))"
        case .response:
            return "\(moment.group) responds \(span) (\(signed(moment.value))\(interval(moment)) from baseline at "
                + "\(number(moment.time)) s), \(stated("p", moment.p ?? 1))"
        case .peak:
            let height = moment.low.map { "[\(number($0)), \(number(moment.high ?? $0))]" } ?? ""
            let time = moment.timeLow.map { "[\(number($0)), \(number(moment.timeHigh ?? $0))] s" } ?? ""
            return "\(moment.group) peaks at \(number(moment.time)) s \(time), height \(number(moment.value)) \(height)"
        }
    }
}
