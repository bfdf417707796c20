public import MienCore

/// Results as CSV, written atomically: Mien's own table (`ResultTable`: one row per face per processed frame,
/// Affdex column names) or OpenFace 2.2's (`OpenFaceTable`, `mien analyze --format openface`).
public final class CSVWriter: ResultWriter {
    /// Which table a file holds.
    public enum Layout: Sendable {
        /// `ResultTable`.
        case mien
        /// `OpenFaceTable`.
        case openface
    }

    private let file: AtomicFile
    private let lines: @Sendable (DetectorResult) -> [String]

    /// Creates `path`'s temporary file and writes the header row.
    /// - Throws: `.ioFailure` naming `path`.
    public init(path: String, layout: Layout = .mien) throws {
        file = try AtomicFile(path: path)
        switch layout {
        case .mien:
            lines = ResultTable.lines(for:)
            try file.write(ResultTable.headerLine + "\n")
        case .openface:
            lines = OpenFaceTable.lines(for:)
            try file.write(OpenFaceTable.headerLine + "\n")
        }
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        for row in lines(result) { try file.write(row + "\n") }
    }

    public func finish(_ end: InputEnd) throws { try file.commit() }

    public func fail(_ error: MienError) { file.abandon() }
}
