import MienStatistics

/// `kpis.csv`: each stimulus's key figures, per group, one definition each (issue 98 item 1, in part).
///
/// Over the participants included for the stimulus (its viewing measured, no exclusion rule met), and for a
/// question asked after it, or at the end, over those of them who answered:
/// - `viewers`: how many were included (no interval);
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
/// Rows for every group together (`all`) and for each group. Unweighted (`weighted` false) until weights exist.
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

    /// Every stimulus's KPIs in `study`, its questions' answered from `sessions`.
    package static func rows(_ study: Study, sessions: [ParticipantSession], questions: StudyQuestions?) -> [Row] {
        let byParticipant = Dictionary(sessions.map { ($0.participant, $0) }, uniquingKeysWith: { first, _ in first })
        var rows: [Row] = []
        for stimulus in study.stimuli {
            let included = study.participants.filter { $0.included && $0.row.stimulus == stimulus }
            let groups = Set(included.compactMap(\.row.group)).sorted()
            let features = StudyFeatures.byParticipant(study, stimulus: stimulus)
            for group in ["all"] + groups {
                let series = group == "all" ? included : included.filter { $0.row.group == group }
                func row(_ kpi: String, _ value: Double, _ interval: (low: Double?, high: Double?), n: Int) -> Row {
                    Row(
                        stimulus: stimulus, group: group, kpi: kpi, value: value, low: interval.low,
                        high: interval.high, n: n)
                }
                rows.append(row("viewers", Double(series.count), (nil, nil), n: series.count))
                let watched = series.compactMap(\.onScreenShare).map { $0 * 100 }
                let mean = Descriptive.meanInterval(watched)
                if let value = mean.mean {
                    rows.append(row("watched", value, clipped(mean, to: 0...100), n: watched.count))
                }
                for metric in StudyFeatures.metrics {
                    for feature in ["mean", "peak"] {
                        let values = series.compactMap { features[$0.row.participant]?["\(metric) \(feature)"] }
                        let figure = Descriptive.meanInterval(values)
                        if let value = figure.mean {
                            let interval = clipped(figure, to: MetricCatalog.entry(named: metric)?.range ?? 0...100)
                            rows.append(row("\(metric).\(feature)", value, interval, n: values.count))
                        }
                    }
                }
                let answering = series.compactMap { byParticipant[$0.row.participant] }
                for question in questions?.questions ?? [] where [stimulus, nil].contains(question.after) {
                    rows += answers(to: question, from: answering).map {
                        var figure = row($0.kpi, $0.value, ($0.low, $0.high), n: $0.n)
                        figure.question = question.text
                        figure.points = question.points
                        figure.option = $0.option
                        return figure
                    }
                }
            }
        }
        return rows
    }

    /// One question's figures over `sessions`: (kpi, value, low, high, n, the option it counts).
    private static func answers(to question: StudyQuestions.Question, from sessions: [ParticipantSession]) -> [(
        kpi: String, value: Double, low: Double?, high: Double?, n: Int, option: String?
    )] {
        func share(_ kpi: String, _ yes: Int, of n: Int, option: String? = nil) -> (
            String, Double, Double?, Double?, Int, String?
        ) {
            let interval = Descriptive.wilson(successes: yes, trials: n)
            return (
                kpi, 100 * Double(yes) / Double(n), interval.map { $0.low * 100 }, interval.map { $0.high * 100 }, n,
                option
            )
        }
        switch question.kind {
        case .scale:
            let scores = sessions.compactMap { $0.answer(question.id)?.score }
            let mean = Descriptive.meanInterval(scores.map(Double.init))
            guard let points = question.points, let range = question.range, let average = mean.mean else { return [] }
            let interval = clipped(mean, to: Double(range.lowerBound)...Double(range.upperBound))
            return [
                share("\(question.id).top2box", scores.filter { $0 >= topTwo(points: points) }.count, of: scores.count),
                ("\(question.id).mean", average, interval.low, interval.high, scores.count, nil),
            ]
        case .single, .multiple:
            let chosen = sessions.compactMap { $0.answer(question.id)?.choices }.filter { !$0.isEmpty }
            guard !chosen.isEmpty else { return [] }
            var figures = (question.options ?? []).map { option in
                share(
                    "\(question.id)=\(option)", chosen.filter { $0.contains(option) }.count, of: chosen.count,
                    option: option)
            }
            if let correct = question.correct {
                figures.append(
                    share(
                        "\(question.id).correct", chosen.filter { $0 == [correct] }.count, of: chosen.count,
                        option: correct))
            }
            return figures
        case .text:
            return []
        }
    }

    /// A mean's t interval clipped to what the figure can be (a 1-7 scale's mean of 4 answers is not below 1).
    static func clipped(_ mean: (mean: Double?, low: Double?, high: Double?), to range: ClosedRange<Double>) -> (
        low: Double?, high: Double?
    ) {
        (mean.low.map { max($0, range.lowerBound) }, mean.high.map { min($0, range.upperBound) })
    }

    /// `kpis.csv`'s text: figures to 2 decimal places, an empty cell for an interval not made.
    package static func csv(_ rows: [Row]) -> String {
        var lines = [header]
        for row in rows {
            lines.append(
                [
                    row.stimulus, row.group, row.kpi, ResultTable.number(row.value, places: 2),
                    row.low.map { ResultTable.number($0, places: 2) } ?? "",
                    row.high.map { ResultTable.number($0, places: 2) } ?? "", String(row.n), String(row.weighted),
                ].map(ResultTable.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
