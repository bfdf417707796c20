import Mien
import MienStatistics

/// `kpis.csv`: each stimulus's key figures, per group, one definition each (issue 98 item 1, in part).
///
/// Over the participants included for the stimulus (its viewing measured, no exclusion rule met), and for a
/// question asked after it, or at the end, over those of them who answered:
/// - `viewers`: how many were included (no interval; weighted: Kish's effective sample size, `n` the count);
/// - `watched`: the mean share of the stimulus they watched (`onScreen`, percent), where it was measured;
/// - `<metric>.mean`, `<metric>.peak`: the emotional response, each headline metric's (`StudyFeatures.metrics`)
///   per-participant mean and peak (features.csv's, 0-100) averaged over the participants;
/// - `<question>.top2box`: a scale's top-two-box share, percent (5 points: 4-5; 7 points: 6-7; 11 points: 9-10);
/// - `<question>.mean`: a scale's mean, in its points;
/// - `<question>=<option>`: a choice's share who chose the option, percent (a multiple choice's over those who chose
///   any);
/// - `<question>.correct`: a recall question's share who chose its `correct:` option, percent.
///
/// Each with its 95 % interval: Wilson's score interval for a share, Student's t for a mean (none below 2 answers;
/// clipped to the figure's range: a scale's points, a metric's 0-100).
/// Rows for every group together (`all`) and for each group, unweighted (`weighted` false), and with `mien study
/// --weight` again weighted (`StudyWeighting`): weighted shares and means, their intervals at Kish's effective
/// sample size.
package enum StudyKPIs {
    /// One figure.
    package struct Row: Sendable, Equatable, Codable {
        package var stimulus: String
        /// A group's name, or `all`.
        package var group: String
        package var kpi: String
        /// Percent for a share, the scale's points for a mean, a count for `viewers`.
        package var value: Double
        package var low: Double?
        package var high: Double?
        /// The participants it is over.
        package var n: Int
        package var weighted = false
        /// The question it counts the answers of, as the participant read it (study.json only: the verdict's words).
        package var question: String? = nil
        /// A scale's points, or the option chosen (`=OPTION`, `.correct`), for the same words.
        package var points: Int? = nil
        package var option: String? = nil
    }

    package static let header = "stimulus,group,kpi,value,low,high,n,weighted"

    /// The first point of a scale's top two boxes: its two highest points (9-10 of 0-10).
    package static func topTwo(points: Int) -> Int { points == 11 ? 9 : points - 1 }

    /// Every stimulus's KPIs in `study`, its questions' answered from `sessions`; with `weights`, each figure again
    /// weighted (`weighted` true) over the participants raked.
    package static func rows(
        _ study: Study, sessions: [ParticipantSession], questions: StudyQuestions?,
        weights: StudyWeighting.Weights? = nil
    ) -> [Row] {
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        var rows: [Row] = []
        for stimulus in study.stimuli {
            let included = study.participants.filter { $0.included && $0.row.stimulus == stimulus }
            let groups = Set(included.compactMap(\.row.group)).sorted()
            let features = StudyFeatures.byParticipant(study, stimulus: stimulus)
            let weightings: [(Bool, (String) -> Double?)] =
                [(false, { _ in 1 })] + (weights.map { given in [(true, { given.weights[$0] })] } ?? [])
            for (weighted, weight) in weightings {
                for group in ["all"] + groups {
                    let series = (group == "all" ? included : included.filter { $0.row.group == group }).filter {
                        weight($0.row.participant) != nil
                    }
                    func row(_ kpi: String, _ figure: Figure) -> Row {
                        Row(
                            stimulus: stimulus, group: group, kpi: kpi, value: figure.value, low: figure.low,
                            high: figure.high, n: figure.n, weighted: weighted)
                    }
                    func values(_ value: (ParticipantSeries) -> Double?) -> [(Double, Double)] {
                        series.compactMap { one in
                            value(one).flatMap { x in weight(one.row.participant).map { (x, $0) } }
                        }
                    }
                    let everyone = values { _ in 1 }
                    rows.append(
                        row(
                            "viewers",
                            Figure(
                                value: Raking.effectiveSize(everyone.map(\.1)), low: nil, high: nil,
                                n: everyone.count)))
                    if let figure = mean(values { $0.onScreenShare.map { $0 * 100 } }, range: 0...100) {
                        rows.append(row("watched", figure))
                    }
                    for metric in StudyFeatures.metrics {
                        let range = MetricCatalog.entry(named: metric)?.range ?? 0...100
                        for feature in ["mean", "peak"] {
                            let measured = values { features[$0.row.participant]?["\(metric) \(feature)"] }
                            if let figure = mean(measured, range: range) {
                                rows.append(row("\(metric).\(feature)", figure))
                            }
                        }
                    }
                    let answering = series.compactMap { one in
                        byParticipant[one.row.participant].flatMap { session in
                            weight(one.row.participant).map { (session, $0) }
                        }
                    }
                    for question in questions?.questions ?? [] where [stimulus, nil].contains(question.after) {
                        rows += answers(to: question, from: answering).map {
                            var figure = row($0.kpi, $0.figure)
                            figure.question = question.text
                            figure.points = question.points
                            figure.option = $0.option
                            return figure
                        }
                    }
                }
            }
        }
        return rows
    }

    /// A figure with its 95 % interval and the participants it is over.
    struct Figure {
        var value: Double
        var low: Double?
        var high: Double?
        var n: Int
    }

    /// The (weighted) share of `pairs` (value 1 or 0, weight) who said yes, percent, with Wilson's interval at
    /// Kish's effective sample size (with every weight 1, the count: the plain Wilson interval).
    static func share(_ pairs: [(Double, Double)]) -> Figure? {
        let total = pairs.reduce(0) { $0 + $1.1 }
        guard !pairs.isEmpty, total > 0 else { return nil }
        let p = pairs.reduce(0) { $0 + $1.0 * $1.1 } / total
        let n = Raking.effectiveSize(pairs.map(\.1))
        let z = Survival.z95
        let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        let half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()
        return Figure(
            value: 100 * p, low: 100 * max(0, centre - half), high: 100 * min(1, centre + half), n: pairs.count)
    }

    /// The (weighted) mean of `pairs` (value, weight) with Student's t interval at Kish's effective sample size
    /// (the weighted variance times n/(n − 1); with every weight 1, the plain t interval), clipped to `range`; no
    /// interval below an effective size of 2.
    static func mean(_ pairs: [(Double, Double)], range: ClosedRange<Double>) -> Figure? {
        let total = pairs.reduce(0) { $0 + $1.1 }
        guard !pairs.isEmpty, total > 0 else { return nil }
        let average = pairs.reduce(0) { $0 + $1.0 * $1.1 } / total
        let n = Raking.effectiveSize(pairs.map(\.1))
        guard n >= 2 - 1e-9 else { return Figure(value: average, low: nil, high: nil, n: pairs.count) }
        let variance = pairs.reduce(0) { $0 + $1.1 * ($1.0 - average) * ($1.0 - average) } / total * n / (n - 1)
        let half = StudentT.critical95(degrees: n - 1) * (variance / n).squareRoot()
        return Figure(
            value: average, low: max(average - half, range.lowerBound), high: min(average + half, range.upperBound),
            n: pairs.count)
    }

    /// One question's figures over `sessions` (each with its weight): (kpi, figure, the option it counts).
    private static func answers(to question: StudyQuestions.Question, from sessions: [(ParticipantSession, Double)])
        -> [(kpi: String, figure: Figure, option: String?)]
    {
        switch question.kind {
        case .scale:
            let scores = sessions.compactMap { session, weight in
                session.answer(question.id)?.score.map { ($0, weight) }
            }
            guard let points = question.points, let range = question.range,
                let average = mean(
                    scores.map { (Double($0.0), $0.1) }, range: Double(range.lowerBound)...Double(range.upperBound)),
                let top = share(scores.map { ($0.0 >= topTwo(points: points) ? 1 : 0, $0.1) })
            else { return [] }
            return [("\(question.id).top2box", top, nil), ("\(question.id).mean", average, nil)]
        case .single, .multiple:
            let chosen = sessions.compactMap { session, weight in
                session.answer(question.id)?.choices.flatMap { $0.isEmpty ? nil : ($0, weight) }
            }
            var figures: [(kpi: String, figure: Figure, option: String?)] = []
            for option in question.options ?? [] {
                if let figure = share(chosen.map { ($0.0.contains(option) ? 1 : 0, $0.1) }) {
                    figures.append(("\(question.id)=\(option)", figure, option))
                }
            }
            if let correct = question.correct, let figure = share(chosen.map { ($0.0 == [correct] ? 1 : 0, $0.1) }) {
                figures.append(("\(question.id).correct", figure, correct))
            }
            return figures
        case .text:
            return []
        }
    }

    /// `kpis.csv`'s text: figures to 2 decimal places, an empty cell for an interval not made.
    package static func csv(_ rows: [Row]) -> String {
        var lines = [header]
        for row in rows {
            lines.append(
                [
                    row.stimulus, row.group, row.kpi, ResultTable.number(row.value, places: 2),
                    ResultTable.number(row.low, places: 2), ResultTable.number(row.high, places: 2), String(row.n),
                    String(row.weighted),
                ].map(ResultTable.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
