import Foundation
import Mien
import Mustache

/// A study as one self-contained HTML page (`study.html`).
///
/// Per stimulus, the charted metrics' curves with their 95 % bands per group, the share of participants in an
/// episode, a strip per participant, and the moments marked; then the participants' table. No script or style leaves the file; a self-check sets
/// `<html data-rendered="ok">` once every chart has something drawn (`scripts/check-report.sh` reads it).
package enum StudyPage {
    /// The most metrics charted per stimulus when the study does not name them (`StudySettings.charts`).
    static let chartedPerStimulus = 8
    /// The charts' geometry is the report's (`LineChart`); the strips under them share its width and margins.
    static let width = LineChart.width
    static let left = LineChart.left
    static let right = LineChart.right
    /// The whole panel first, then the groups in order: the colours `mien.plot.study` uses too.
    static let palette = ["#333333", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    package static func render(_ study: Study, generator: String) throws -> String {
        let settings = study.settings
        let page = try MustacheTemplate(string: StudyPageTemplate.page)
        let chart = try ChartSVG.parsed()
        let correction =
            settings.correction == .cluster
            ? "cluster-based, the chance of any false finding per stimulus held at \(number(settings.alpha))"
            : "per bin with Benjamini-Hochberg, false discoveries held at \(number(settings.alpha))"
        let included = study.participants.filter(\.included)
        var sizes = ["all \(Set(included.map(\.row.participant)).count)"]
        for group in Set(included.compactMap(\.row.group)).sorted() {
            sizes.append(
                "\(named(group, settings)) \(Set(included.filter { $0.row.group == group }.map(\.row.participant)).count)"
            )
        }
        let excluded = Set(study.participants.map(\.row.participant)).subtracting(included.map(\.row.participant))
        var view = PageView(
            title: settings.title.map { "Study \($0)" } ?? "Study",
            panelSizes: "Participants included: \(sizes.joined(separator: " · "))"
                + (excluded.isEmpty ? "" : " (\(excluded.count) left out, each with why in the table at the end)"),
            maxWidth: 1040, bin: number(settings.bin), minimumParticipants: settings.minimumParticipants,
            minimumFaceShare: number(settings.minimumFaceShare * 100),
            minimumWatchedShare: number(settings.minimumWatchedShare * 100), baseline: number(settings.baseline),
            correction: correction, permutations: settings.permutations, chartedPerStimulus: chartedPerStimulus,
            minimumEffect: number(settings.minimumEffect),
            stimuli: study.stimuli.map { section($0, study: study, chart: chart) },
            summaries: study.stimuli.map { summary($0, study: study) },
            participants: study.participants.map(ParticipantView.init), notes: study.notes.map(TextView.init),
            generator: generator, seed: settings.seed)
        view.profile = profile(included).map(TextView.init)
        view.verdicts = verdicts(study, sections: view.stimuli)
        view.tallies = tallies(study)
        view.hasTallies = !view.tallies.isEmpty
        view.talliesCount = view.tallies.count
        view.contrasts = contrasts(study)
        view.hasContrasts = !view.contrasts.isEmpty
        view.groupTables = groupTables(study)
        view.alpha = number(settings.alpha)
        return page.render(view)
    }

    /// The included participants (each once) by what their panel said of them: per attribute, each value's count
    /// with its share, and those it was not given for ("Sample by age: 18-24 5 (42 %) · 25-34 7 (58 %)").
    static func profile(_ included: [ParticipantSeries]) -> [String] {
        var byParticipant: [String: [String: String]] = [:]
        for series in included { byParticipant[series.row.participant] = series.row.attributes ?? [:] }
        let names = Set(byParticipant.values.flatMap(\.keys)).sorted()
        return names.map { name in
            var counts: [String: Int] = [:]
            for attributes in byParticipant.values { counts[attributes[name] ?? "", default: 0] += 1 }
            let total = byParticipant.count
            let parts = counts.keys.filter { !$0.isEmpty }.sorted().map { value in
                "\(value) \(counts[value] ?? 0) (\(number(Double(counts[value] ?? 0) / Double(total) * 100)) %)"
            }
            let missing = counts[""].map { ["not given \($0)"] } ?? []
            return "Sample by \(name) (as the panel's link gave it): " + (parts + missing).joined(separator: " · ")
        }
    }

    /// A group as the page names it: with its description when the study gives one ("A (Women 18-34)").
    static func named(_ group: String, _ settings: StudySettings) -> String {
        settings.groupLabels[group].map { "\(group) (\($0))" } ?? group
    }

    /// The metrics charted first when the study names none: what a researcher of adverts looks at first.
    static let firstCharted = ["expressions.smile", "emotions.joy", "valence"]

    /// Whether the page shows `moment`: every peak; a response or a difference only when it changes the mean by at
    /// least the study's `minimumEffect` points (a passing p on a change of a point or two is not a response a
    /// reader should be shown).
    static func shown(_ moment: StudyMoment, _ settings: StudySettings) -> Bool {
        moment.kind == .peak || abs(moment.value) >= settings.minimumEffect - 1e-9
    }

    /// The metrics charted for a stimulus: the study's choice, or the rule: smile, joy and valence, then the metrics
    /// with a response or a difference of at least `minimumEffect` points that passed its test, strongest first
    /// (by p, then by the size of the effect); at most `chartedPerStimulus`.
    static func charted(_ stimulus: String, study: Study) -> [String] {
        let curves = study.curves.filter { $0.stimulus == stimulus }
        let measured = curves.reduce(into: [String]()) { if !$0.contains($1.metric) { $0.append($1.metric) } }
        if !study.settings.charts.isEmpty { return study.settings.charts.filter(measured.contains) }
        // Tested moments (responses, differences) large enough to show; whether people watched has its own chart.
        let effects = study.moments.filter {
            $0.stimulus == stimulus && $0.kind != .peak && $0.p != nil && shown($0, study.settings)
                && !MetricCatalog.viewing.contains($0.metric)
        }
        func strength(_ metric: String) -> (Double, Double) {
            let tested = effects.filter { $0.metric == metric }
            return (-(tested.compactMap(\.p).min() ?? 2), tested.map { abs($0.value) }.max() ?? 0)
        }
        let first = firstCharted.filter(measured.contains)
        let rest = measured.filter { metric in !first.contains(metric) && effects.contains { $0.metric == metric } }
            .sorted { strength($0) > strength($1) }
        return Array((first + rest).prefix(chartedPerStimulus))
    }

    /// A metric's plain name: the catalog's last name part, words split (`expressions.lipCornerDepressor` →
    /// "Lip corner depressor").
    static func label(_ metric: String) -> String {
        let last = metric.split(separator: ".").last.map(String.init) ?? metric
        var words = ""
        for character in last {
            if character.isUppercase && !words.isEmpty { words += " " }
            words += String(character).lowercased()
        }
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
