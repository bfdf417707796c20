import Foundation

/// The merged CSV's rows, written in batches (an input can be far larger than memory), each prefixed with
/// its input; checks that every input's rows run in frame order with no face of a frame twice.
final class MergedRows {
    private let file: AtomicFile
    private var batch = ""
    private var batchRows = 0
    /// Rows taken so far (written or in the batch).
    private(set) var count = 0
    /// Rows gathered before each write.
    static let rowsPerWrite = 2_000

    init(file: AtomicFile) { self.file = file }

    func flush() throws {
        guard batchRows > 0 else { return }
        try file.write(batch)
        batch = ""
        batchRows = 0
    }

    private func append(_ row: String, input quoted: String) throws {
        batch += quoted + "," + row + "\n"
        batchRows += 1
        count += 1
        if batchRows >= Self.rowsPerWrite { try flush() }
    }

    /// Copies a task's CSV (`ResultTable` rows) for `input`.
    /// - Throws: `.corruptData` naming the file when its header is not this Mien's or a row repeats or goes
    ///   back (frame, then face ID).
    func copy(csvPath: String, input: String) throws {
        let quoted = ResultTable.quoted(input)
        var last = (frame: -1, face: -1)
        try LineReader(path: csvPath).forEachRow(header: ResultTable.headerLine, what: "CSV") { text, number in
            // TimeStamp, frame, faceId lead every row, unquoted numbers.
            let cells = text.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
            guard cells.count == 4, let frame = Int(cells[1]), let face = Int(cells[2]) else {
                throw MienError(.corruptData, "line \(number) is not a result row", input: csvPath)
            }
            guard (frame, face) > last else {
                throw MienError(
                    .corruptData,
                    "line \(number): frame \(frame), face \(face) repeats or comes after frame \(last.frame)",
                    input: csvPath)
            }
            last = (frame, face)
            try append(text, input: quoted)
        }
    }

    /// Replays a task's JSON Lines for `input` into rows, passing each result to `body` too.
    /// - Throws: `.corruptData` naming the file when a line is not a result or a frame repeats.
    func replay(jsonlPath: String, input: String, _ body: (DetectorResult) -> Void) throws {
        let quoted = ResultTable.quoted(input)
        var last = -1
        try JSONLinesReader(path: jsonlPath).forEachResult { result in
            guard result.frameIndex > last else {
                throw MienError(
                    .corruptData, "frame \(result.frameIndex) follows frame \(last): frames repeat", input: jsonlPath)
            }
            last = result.frameIndex
            body(result)
            for line in ResultTable.lines(for: result) { try append(line, input: quoted) }
        }
    }
}
