/// A study's tables as CSV text (`curves.csv`, `participants.csv`, `moments.csv`, `isc.csv`, `segments.csv`),
/// header row first, RFC 4180 quoting as `ResultTable`'s; times to the millisecond, figures to 4 decimals.
import Mien

package enum StudyTables {
    package static func curves(_ study: Study) -> String {
        table(["stimulus", "group", "metric", "time", "n", "mean", "low", "high", "episodeShare"], study.curves) {
            [
                $0.stimulus, $0.group, $0.metric, time($0.time), String($0.n), figure($0.mean), figure($0.low),
                figure($0.high), figure($0.episodeShare),
            ]
        }
    }

    /// The attention curves: per stimulus, group and bin, the included viewers judged (`n`) and the share of them
    /// watching, percent, with Wilson's 95 % interval.
    package static func attention(_ study: Study) -> String {
        table(["stimulus", "group", "time", "n", "onScreen", "low", "high"], study.attention) {
            [
                $0.stimulus, $0.group, time($0.time), String($0.n), figure($0.mean), figure($0.low), figure($0.high),
            ]
        }
    }

    /// The retention curves of skippable stimuli: per stimulus, group and bin, the viewers still watching at its
    /// start, those who skipped in it, and the percent still watching at its end with its 95 % band (each
    /// stimulus's log-rank test is in `study.json` and the notes).
    package static func retention(_ study: Study) -> String {
        table(
            ["stimulus", "group", "time", "atRisk", "skipped", "retained", "low", "high"], study.retention
        ) {
            [
                $0.stimulus, $0.group, time($0.time), String($0.atRisk), String($0.skipped), figure($0.retained),
                figure($0.low), figure($0.high),
            ]
        }
    }

    /// One row per participant and stimulus (manifest rows that could not be used last), then the per-metric
    /// means (`mean.<metric>`) and episode counts (`episodes.<metric>`).
    package static func participants(_ study: Study, problems: [StudyManifest.Problem]) -> String {
        let means = Set(study.participants.flatMap(\.means.keys))
        let meanColumns = StudyRecordingReader.scored.map(\.name).filter(means.contains)
        let episodeColumns = Set(study.participants.flatMap(\.episodeCounts.keys)).sorted()
        // A collected study's rows say what the page recorded of the viewing ("not recorded": it sent nothing).
        let collected = study.participants.contains { $0.row.status != nil }
        let viewingColumns = collected ? ["viewing", "exposures"] + ViewingFigures.columns : []
        // What the panel said of each participant (`attribute.NAME`), when the manifest had any.
        let attributes = Set(study.participants.flatMap { ($0.row.attributes ?? [:]).keys }).sorted()
        let header: [String] =
            [
                "participant", "stimulus", "group", "recording", "onset", "duration", "included", "exclusion",
                "faceId", "frames", "faceFrames", "faceShare", "facesSeen", "framesWithSeveralFaces", "notes",
                "onScreenShare",
            ] + viewingColumns + attributes.map(PanelAttribute.column) + meanColumns.map { "mean." + $0 }
            + episodeColumns.map { "episodes." + $0 }
        var lines = [header.map(ResultTable.quoted).joined(separator: ",")]
        for series in study.participants {
            let row = series.row
            var cells: [String] = [
                row.participant, row.stimulus, row.group ?? "", row.recording, time(row.onset),
                row.duration.map(time) ?? "", series.included ? "1" : "0", series.exclusion ?? "",
            ]
            cells += [
                series.faceId.map(String.init) ?? "", String(series.frames), String(series.faceFrames),
                figure(series.faceShare), String(series.facesSeen), String(series.framesWithSeveralFaces),
                series.notes.joined(separator: "; "), figure(series.onScreenShare),
            ]
            if collected {
                cells +=
                    [row.viewing == nil ? "not recorded" : "recorded", row.exposures.map(String.init) ?? ""]
                    + (row.viewing?.cells ?? Array(repeating: "", count: ViewingFigures.columns.count))
            }
            cells += attributes.map { row.attributes?[$0] ?? "" }
            cells += meanColumns.map { figure(series.means[$0]) }
            cells += episodeColumns.map { series.episodeCounts[$0].map(String.init) ?? "" }
            lines.append(cells.map(ResultTable.quoted).joined(separator: ","))
        }
        for problem in problems {
            let cells =
                [
                    problem.participant ?? "", problem.stimulus ?? "", problem.group ?? "", problem.recording ?? "",
                    problem.onset ?? "", "", "0", "manifest line \(problem.line): \(problem.message)",
                ]
                + Array(repeating: "", count: header.count - 8)
            lines.append(cells.map(ResultTable.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every moment; `p`, `mass`, `method` and `permutations` say how a response or difference was tested, and
    /// `timeLow`/`timeHigh` bound a peak's time.
    package static func moments(_ study: Study) -> String {
        table(
            [
                "stimulus", "kind", "metric", "group", "otherGroup", "start", "end", "time", "value", "low", "high",
                "timeLow", "timeHigh", "p", "mass", "method", "permutations", "episodeShare",
            ], study.moments
        ) {
            [
                $0.stimulus, $0.kind.rawValue, $0.metric, $0.group, $0.otherGroup ?? "", time($0.start), time($0.end),
                time($0.time), figure($0.value), figure($0.low), figure($0.high), $0.timeLow.map(time) ?? "",
                $0.timeHigh.map(time) ?? "", probability($0.p), figure($0.mass), $0.method ?? "",
                $0.permutations.map(String.init) ?? "", figure($0.episodeShare),
            ]
        }
    }

    /// Every group's ISC per metric with its corrected p, bootstrap interval and bins, or why there is none.
    package static func correlations(_ study: Study) -> String {
        table(
            ["stimulus", "group", "metric", "n", "isc", "p", "uncorrectedP", "low", "high", "bins", "reason"],
            study.correlations
        ) {
            [
                $0.stimulus, $0.group, $0.metric, String($0.n), figure($0.isc), probability($0.p),
                probability($0.uncorrectedP), figure($0.low), figure($0.high), String($0.bins), $0.reason ?? "",
            ]
        }
    }

    package static func segments(_ study: Study) -> String {
        table(["stimulus", "segment", "group", "metric", "n", "mean", "low", "high", "episodeShare"], study.segments) {
            [
                $0.stimulus, $0.segment, $0.group, $0.metric, String($0.n), figure($0.mean), figure($0.low),
                figure($0.high), figure($0.episodeShare),
            ]
        }
    }

    private static func table<Row>(_ header: [String], _ rows: [Row], cells: (Row) -> [String]) -> String {
        ([header] + rows.map(cells)).map { $0.map(ResultTable.quoted).joined(separator: ",") }.joined(separator: "\n")
            + "\n"
    }

    private static func time(_ seconds: Double) -> String { ResultTable.number(seconds, places: 3) }
    private static func figure(_ value: Double?) -> String { ResultTable.number(value, places: 4) }
    /// p-values to 6 places: 1 / 1,000,000 permutations is the smallest a study can give.
    private static func probability(_ value: Double?) -> String { ResultTable.number(value, places: 6) }
}
