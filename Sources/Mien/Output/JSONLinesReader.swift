package import Foundation

/// Reads a JSON Lines output file back as results, one line at a time (the file can be far larger than
/// memory: an hour of video is about 100,000 lines).
public struct JSONLinesReader: Sendable {
    /// The file.
    public let path: String

    /// A reader of the JSON Lines file at `path` (nothing is opened until it is read).
    public init(path: String) { self.path = path }

    /// Calls `body` with each result, in the file's order.
    /// - Throws: `.unreadable` naming the file, `.corruptData` naming it with the line that is not a result,
    ///   or what `body` throws.
    public func forEachResult(_ body: (DetectorResult) throws -> Void) throws {
        let decoder = JSONDecoder()
        try LineReader(path: path).forEachLine { line, number in
            try Self.decode(line, number: number, source: path, decoder: decoder, body)
        }
    }

    /// Calls `body` with each result of JSON Lines held in memory (a study's results read from its database);
    /// `source` names them in errors.
    /// - Throws: `.corruptData` naming `source` with the line that is not a result, or what `body` throws.
    package static func forEachResult(in lines: Data, source: String, _ body: (DetectorResult) throws -> Void) throws {
        let decoder = JSONDecoder()
        var number = 0
        var start = lines.startIndex
        while start < lines.endIndex {
            let end = lines[start...].firstIndex(of: UInt8(ascii: "\n")) ?? lines.endIndex
            number += 1
            try decode(lines[start..<end], number: number, source: source, decoder: decoder, body)
            start = end < lines.endIndex ? lines.index(after: end) : end
        }
    }

    private static func decode(
        _ line: Data, number: Int, source: String, decoder: JSONDecoder, _ body: (DetectorResult) throws -> Void
    ) throws {
        guard !line.isEmpty else { return }
        let result: DetectorResult
        do {
            result = try decoder.decode(DetectorResult.self, from: line)
        } catch {
            throw MienError(.corruptData, "line \(number) is not a Mien result", input: source, cause: "\(error)")
        }
        try body(result)
    }
}
