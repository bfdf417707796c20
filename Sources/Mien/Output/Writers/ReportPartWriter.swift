import Foundation
public import MienCore

/// Writes one input's report part (`InputReport` in its file form: summary sums, timelines, thumbnails as
/// JPEG) to `<name>.report.json` when the input finishes, so that `mien merge` can build the data set's
/// page, with thumbnails, without reading the input's frames or results again.
public final class ReportPartWriter: ResultWriter {
    private let path: String
    /// The same input's report writer, which gathers the part (finished before this one).
    private let report: ReportWriter

    /// A writer of `report`'s input as a report part at `path` (JSON, for `mien merge`).
    public init(path: String, report: ReportWriter) {
        self.path = path
        self.report = report
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {}

    public func finish(_ end: InputEnd) throws {
        let file = try AtomicFile(path: path)
        try file.write(try JSONLinesWriter.makeEncoder().encode(report.part))
        try file.write("\n")
        try file.commit()
    }

    public func fail(_ error: MienError) {}
}
