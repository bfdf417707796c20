public import MienCore

/// Results as CSV (`ResultTable`: one row per face per processed frame, Affdex column names), written
/// atomically.
public final class CSVWriter: ResultWriter {
    private let file: AtomicFile

    /// Creates `path`'s temporary file and writes the header row.
    /// - Throws: `.ioFailure` naming `path`.
    public init(path: String) throws {
        file = try AtomicFile(path: path)
        try file.write(ResultTable.headerLine + "\n")
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        for row in ResultTable.lines(for: result) { try file.write(row + "\n") }
    }

    public func finish(_ end: InputEnd) throws { try file.commit() }

    public func fail(_ error: MienError) { file.abandon() }
}
