import Foundation

/// The HTML report page of one input, written when it ends from its report writer's part: the same page as
/// `mien analyze --report` renders for several inputs (`HTMLReport.render`, the one renderer).
public final class HTMLReportWriter: ResultWriter {
    private let path: String
    private let report: ReportWriter
    private let generator: String

    /// A writer of `report`'s input as a whole HTML page at `path`.
    /// - Parameters:
    ///   - path: the HTML file to write (atomically, when the input ends).
    ///   - report: the same input's report writer, finished before this one.
    ///   - generator: what the page says made it (`mien serve`, `mien analyze`).
    public init(path: String, report: ReportWriter, generator: String) {
        self.path = path
        self.report = report
        self.generator = generator
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {}

    public func finish(_ end: InputEnd) throws {
        let page = try HTMLReport.render([report.part], generator: generator)
        let file = try AtomicFile(path: path)
        try file.write(Data(page.utf8))
        try file.commit()
    }

    public func fail(_ error: MienError) {}
}
