public import MienCore

/// Results as OpenFace 2.2's CSV (`OpenFaceTable`), written atomically: `mien analyze --format openface`.
public final class OpenFaceWriter: ResultWriter {
    private let file: AtomicFile

    /// Creates `path`'s temporary file and writes the header row.
    /// - Throws: `.ioFailure` naming `path`.
    public init(path: String) throws {
        file = try AtomicFile(path: path)
        try file.write(OpenFaceTable.headerLine + "\n")
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        for row in OpenFaceTable.lines(for: result) { try file.write(row + "\n") }
    }

    public func finish(_ end: InputEnd) throws { try file.commit() }

    public func fail(_ error: MienError) { file.abandon() }
}
