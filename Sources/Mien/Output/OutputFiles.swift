/// The files one input's results are written to, and their writers, assembled in one place for
/// `mien analyze` (and its shards) and the service's jobs, so that both write the same files the same way.
package struct OutputFiles: Sendable, Equatable {
    /// JSON Lines: one `DetectorResult` per frame.
    package var jsonl: String?
    /// One row per face and frame.
    package var csv: String?
    /// One row per finished episode (`EventTable`).
    package var events: String?
    /// The input's summary (`InputSummary`).
    package var summary: String?
    /// The report writer's part as JSON, for `mien merge`.
    package var reportPart: String?
    /// A one-input HTML report page.
    package var page: String?
    /// OpenFace 2.2's CSV (`OpenFaceTable`).
    package var openface: String?

    /// The files of one input; nil leaves an output out.
    package init(
        jsonl: String? = nil, csv: String? = nil, events: String? = nil, summary: String? = nil,
        reportPart: String? = nil, page: String? = nil, openface: String? = nil
    ) {
        self.jsonl = jsonl
        self.csv = csv
        self.events = events
        self.summary = summary
        self.reportPart = reportPart
        self.page = page
        self.openface = openface
    }

    /// Every file named.
    package var all: [String] { [jsonl, csv, events, summary, reportPart, page, openface].compactMap { $0 } }

    /// The writers of these files, in the order they must finish: the report writer before the summary,
    /// the part and the page, which read it.
    ///
    /// - Parameters:
    ///   - input: the input's name, as the outputs show it.
    ///   - report: the input's report writer when the caller keeps it (a report of several inputs); one is
    ///     made here when the part or the page needs it. It is in the list either way.
    ///   - generator: what a page says made it.
    ///   - keepingCheckpoint: a failed input leaves the JSON Lines' temporary file for a recovery.
    /// - Throws: `.ioFailure` naming a file that cannot be created.
    package func writers(
        input: String, report: ReportWriter?, generator: String, keepingCheckpoint: Bool = false
    ) throws -> [any ResultWriter] {
        var writers: [any ResultWriter] = []
        if let jsonl { writers.append(try JSONLinesWriter(path: jsonl, keepsCheckpoint: keepingCheckpoint)) }
        if let csv { writers.append(try CSVWriter(path: csv)) }
        if let openface { writers.append(try CSVWriter(path: openface, layout: .openface)) }
        if let events { writers.append(try EventsCSVWriter(path: events, input: input)) }
        let report = report ?? (reportPart != nil || page != nil ? ReportWriter(input: input) : nil)
        if let report { writers.append(report) }
        if let summary { writers.append(SummaryWriter(path: summary, input: input, sharing: report)) }
        if let reportPart, let report { writers.append(ReportPartWriter(path: reportPart, report: report)) }
        if let page, let report { writers.append(HTMLReportWriter(path: page, report: report, generator: generator)) }
        return writers
    }
}
