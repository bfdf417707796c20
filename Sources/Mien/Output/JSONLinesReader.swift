import Foundation

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
            guard !line.isEmpty else { return }
            let result: DetectorResult
            do {
                result = try decoder.decode(DetectorResult.self, from: line)
            } catch {
                throw MienError(.corruptData, "line \(number) is not a Mien result", input: path, cause: "\(error)")
            }
            try body(result)
        }
    }
}
