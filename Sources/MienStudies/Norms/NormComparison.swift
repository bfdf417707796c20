import Foundation
import Mien
import MienStatistics

/// Each stimulus of a study placed against a norm (`mien study --norms`; issue 80 item 4).
///
/// Per figure the percentile among the norm's stimuli with an interval from resampling this stimulus's participants, and an arrow only where
/// the sign-flip test against the norm's median passes after Benjamini-Hochberg over the stimulus's figures
/// (`NormPlacement`). Nothing is placed against fewer than `floor` stimuli.
package enum NormComparison {
    /// The fewest norm stimuli a figure is placed among (Realeyes' published floor).
    package static let floor = 10
    package static let header =
        "stimulus,figure,value,n,normSize,normMedian,percentile,low,high,p,q,difference,minimum,direction,reason"

    /// The norm as given: where it is, the filters, and the entries they leave.
    package struct Norm: Sendable {
        /// The file or database it was read from, as the page names it.
        package var source: String
        package var filters: [String: String]
        /// Every entry that matches the filters.
        package var entries: [NormEntry]

        package init(source: String, filters: [String: String], entries: [NormEntry]) {
            self.source = source
            self.filters = filters
            self.entries = entries.filter { $0.matches(filters) }
        }

        /// The filters in words ("category=snacks, region=UK", or "no filter").
        package var filterWords: String {
            filters.isEmpty
                ? "no filter"
                : filters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                    separator: ", ")
        }
    }

    /// One figure of one stimulus against the norm.
    package struct Row: Sendable, Codable, Equatable {
        package var stimulus: String
        package var figure: String
        /// The stimulus's figure and the participants it is the mean over.
        package var value: Double
        package var n: Int
        /// The norm's stimuli with the figure (of this study's bin and frames, this stimulus itself left out).
        package var normSize: Int
        package var normMedian: Double?
        package var percentile: Double?
        package var low: Double?
        package var high: Double?
        /// The sign-flip test's p, and Benjamini-Hochberg's over the stimulus's placed figures.
        package var p: Double?
        package var q: Double?
        /// The stimulus's figure minus the norm's median, and the least difference an arrow needs, in the figure's
        /// own units: `minimumSpread` times the norm's standard deviation over its stimuli (issue 95 item 5).
        package var difference: Double?
        package var minimum: Double?
        /// `above` or `below` the norm's median where q < alpha and the difference reaches `minimum`; nil otherwise.
        package var direction: String?
        /// Why it was not placed.
        package var reason: String?
    }

    /// The rows of every stimulus of `study` against `norm`.
    /// - Parameter answers: by stimulus, each participant's scale answers concerning it (`NormFigures.answers`).
    package static func rows(_ study: Study, answers: [String: [String: [String: Double]]], norm: Norm) -> [Row] {
        let settings = study.settings
        let alike = norm.entries.filter { abs($0.bin - settings.bin) < 1e-9 && $0.allFrames == settings.allFrames }
        var rows: [Row] = []
        for stimulus in study.stimuli {
            let values = NormFigures.perParticipant(study, stimulus: stimulus, answers: answers[stimulus] ?? [:])
            // The stimulus is not placed among itself: its own entry (the same panel) is left out.
            let fingerprint = NormEntry.fingerprint(
                stimulus, panel: study.participants.filter { $0.row.stimulus == stimulus && $0.included })
            let others = alike.filter { $0.fingerprint != fingerprint }
            var placed: [Row] = []
            for figure in order(values.keys) {
                let mine = (values[figure] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
                let normValues = others.compactMap { $0.figures[figure] }
                let mean = mine.reduce(0, +) / Double(max(mine.count, 1))
                var row = Row(
                    stimulus: stimulus, figure: figure, value: mean, n: mine.count, normSize: normValues.count)
                guard normValues.count >= floor else {
                    row.reason =
                        "not compared: the norm holds \(normValues.count) stimul\(normValues.count == 1 ? "us" : "i") with this figure (at least \(floor))"
                    placed.append(row)
                    continue
                }
                let family = settings.permutationSettings(family: "\(stimulus)\u{1F}norm\u{1F}\(figure)")
                guard
                    let result = NormPlacement.place(
                        mine, among: normValues, settings: .init(resamples: 2000, seed: family.seed))
                else { continue }
                row.normMedian = result.normMedian
                row.difference = mean - result.normMedian
                let normMean = normValues.reduce(0, +) / Double(normValues.count)
                let spread =
                    (normValues.reduce(0) { $0 + ($1 - normMean) * ($1 - normMean) } / Double(normValues.count - 1))
                    .squareRoot()
                row.minimum = settings.normMinimumSpread * spread
                row.percentile = result.percentile
                row.low = result.low
                row.high = result.high
                row.p = result.p
                placed.append(row)
            }
            let tested = placed.indices.filter { placed[$0].p != nil }
            let adjusted = BenjaminiHochberg.adjust(tested.map { placed[$0].p ?? 1 })
            for (index, q) in zip(tested, adjusted) {
                placed[index].q = q
                if q < settings.alpha, let difference = placed[index].difference,
                    abs(difference) >= (placed[index].minimum ?? 0), difference != 0
                {
                    placed[index].direction = difference > 0 ? "above" : "below"
                }
            }
            rows += placed
        }
        return rows
    }

    /// Figures in the page's order: the headline metrics' features, the marks', attention, then the answers.
    static func order(_ figures: Dictionary<String, [String: Double]>.Keys) -> [String] {
        func rank(_ figure: String) -> (Int, Int, String) {
            if figure == NormFigures.attention { return (2, 0, figure) }
            if isAnswer(figure) { return (3, 0, figure) }
            let parts = figure.split(separator: " ", maxSplits: 1).map(String.init)
            let metric = StudyFeatures.metrics.firstIndex(of: parts.first ?? "") ?? StudyFeatures.metrics.count
            let feature = NormFigures.features.firstIndex(of: parts.last ?? "") ?? NormFigures.features.count
            return (feature < NormFigures.features.count ? 0 : 1, metric * 10 + feature, figure)
        }
        return figures.sorted { rank($0) < rank($1) }
    }

    /// The summary's order of figures: means, attention and answers, then peaks, then the marks' figures, then
    /// slopes; ties in `order`'s order.
    static func headlineRank(_ figure: String) -> Int {
        if figure == NormFigures.attention || isAnswer(figure) || figure.hasSuffix(" mean") {
            return 0
        }
        if figure.hasSuffix(" peak") { return 1 }
        if figure.hasSuffix("Slope") { return 3 }
        return 2
    }

    /// Whether `figure` is made of the answers (a scale's score or top two boxes, a recall question's right answer).
    static func isAnswer(_ figure: String) -> Bool {
        figure.hasPrefix("answer ") || figure.hasPrefix("top2box ") || figure.hasPrefix("recall ")
    }

    /// The figure as a reader says it ("smile mean", "attention (% watched)", "answer liking (7 points)").
    package static func words(_ figure: String) -> String {
        if figure == NormFigures.attention { return "attention (% of it watched)" }
        if figure.hasPrefix("answer ") { return figure }
        if figure.hasPrefix("top2box ") { return "top-2-box share of " + figure.dropFirst("top2box ".count) }
        if figure.hasPrefix("recall ") { return "share right of " + figure.dropFirst("recall ".count) }
        let parts = figure.split(separator: " ", maxSplits: 1).map(String.init)
        return "\(StudyPage.label(parts.first ?? figure).lowercased()) \(parts.count > 1 ? parts[1] : "")"
    }

    /// A percentile as English counts it, rounded: "1st", "22nd", "50th", "13th".
    static func ordinal(_ percentile: Double) -> String {
        let whole = Int(saturating: percentile)
        let suffix =
            (11...13).contains(whole % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][whole % 10] ?? "th"
        return "\(whole)\(suffix)"
    }

    /// `norms.csv`: a row per stimulus and figure.
    package static func csv(_ rows: [Row]) -> String {
        func number(_ value: Double?, _ places: Int = 4) -> String {
            value.map { ResultTable.number($0, places: places) } ?? ""
        }
        var lines = [header]
        for row in rows {
            lines.append(
                [
                    row.stimulus, row.figure, number(row.value), "\(row.n)", "\(row.normSize)", number(row.normMedian),
                    number(row.percentile, 1), number(row.low, 1), number(row.high, 1), number(row.p), number(row.q),
                    number(row.difference), number(row.minimum), row.direction ?? "", row.reason ?? "",
                ].map(ResultTable.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How the comparison was made, for study.json's notes and the page.
    package static func note(_ norm: Norm, study: Study) -> String {
        let settings = study.settings
        let alike = norm.entries.filter { abs($0.bin - settings.bin) < 1e-9 && $0.allFrames == settings.allFrames }
        let unlike = norm.entries.count - alike.count
        return
            "Norm \(norm.source) (\(norm.filterWords)): \(alike.count) stimul\(alike.count == 1 ? "us" : "i") aggregated as this study (\(ResultTable.number(settings.bin, places: 3)) s bins, \(settings.allFrames ? "every frame" : "watched frames"))"
            + (unlike > 0 ? "; \(unlike) more in it were aggregated otherwise and are not compared" : "")
            + ". Each figure (the mean over a stimulus's participants) is placed by its percentile among the norm's stimuli (scipy's percentileofscore, kind mean), a stimulus never among itself, with a 95 % interval from 2000 bootstrap resamples of this stimulus's participants; an arrow where a sign-flip permutation test of the participants against the norm's median passes after Benjamini-Hochberg over the stimulus's figures (false discoveries at \(ResultTable.number(settings.alpha, places: 2))) and the figure differs from the norm's median by at least \(ResultTable.number(settings.normMinimumSpread, places: 2)) times the norm's standard deviation over its stimuli (the minimum in the figure's own units is in norms.csv; --norm-min-difference); nothing is placed among fewer than \(floor) stimuli."
    }

    /// study.html's summary lines per stimulus: the norm, then the placed figures (arrows first).
    package static func lines(_ rows: [Row], norm: Norm) -> [String: [String]] {
        var lines: [String: [String]] = [:]
        for stimulus in Set(rows.map(\.stimulus)) {
            let mine = rows.filter { $0.stimulus == stimulus }
            let placed = mine.filter { $0.percentile != nil }
            let size = placed.map(\.normSize).max() ?? mine.map(\.normSize).max() ?? 0
            var line = "Against the norm (\(size) stimul\(size == 1 ? "us" : "i"); \(norm.filterWords)): "
            guard !placed.isEmpty else {
                line +=
                    "not compared: fewer than \(floor) stimuli in it hold this stimulus's figures, aggregated as this study."
                lines[stimulus] = [line]
                continue
            }
            func said(_ row: Row) -> String {
                let arrow = row.direction == "above" ? "↑ " : row.direction == "below" ? "↓ " : ""
                return
                    "\(arrow)\(words(row.figure)) at the \(ordinal(row.percentile ?? 0)) percentile [\(ResultTable.number(row.low ?? 0, places: 0)), \(ResultTable.number(row.high ?? 0, places: 0))]"
                    + (row.direction.map {
                        " (\($0) the norm's median by \(ResultTable.number(abs(row.difference ?? 0), places: 2)), \(AnswerSummary.stated("q", row.q ?? 1)))"
                    } ?? "")
            }
            // Means, attention and answers before peaks, the marks' responses and slopes (issue 95 item 5: a slope of
            // 0.17 points a second was listed before the mean).
            let ranked = placed.enumerated().sorted {
                (headlineRank($0.element.figure), $0.offset) < (headlineRank($1.element.figure), $1.offset)
            }.map(\.element)
            let arrows = ranked.filter { $0.direction != nil }
            let headline = ranked.filter { row in
                row.direction == nil
                    && (["expressions.smile mean", "emotions.joy mean", NormFigures.attention].contains(row.figure)
                        || isAnswer(row.figure))
            }
            line += (arrows + headline).map(said).joined(separator: "; ") + ". "
            line +=
                arrows.isEmpty
                ? "No figure of the \(placed.count) placed differs from the norm's median by the stated minimum after correction (norms.csv)."
                : "The other \(placed.count - arrows.count) placed figures do not differ from its median by the stated minimum after correction (norms.csv)."
            lines[stimulus] = [line]
        }
        return lines
    }
}
