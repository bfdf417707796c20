import Foundation

/// Reads a JSON Lines output file back as results, one line at a time (the file can be far larger than
/// memory: an hour of video is about 100,000 lines).
public struct JSONLinesReader: Sendable {
    /// The file.
    public let path: String
    /// Bytes read per call to the file system.
    static let chunkSize = 1 << 20

    public init(path: String) { self.path = path }

    /// Calls `body` with each result, in the file's order.
    /// - Throws: `.unreadable` naming the file, `.corruptData` naming it with the line that is not a result,
    ///   or what `body` throws.
    public func forEachResult(_ body: (DetectorResult) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MienError(.unreadable, "cannot open the JSON Lines file", input: path)
        }
        defer { try? handle.close() }
        let decoder = JSONDecoder()
        var pending = Data()
        var lineNumber = 0
        func decode(_ line: Data) throws {
            lineNumber += 1
            guard !line.isEmpty else { return }
            do {
                try body(try decoder.decode(DetectorResult.self, from: line))
            } catch let error as DecodingError {
                throw MienError(.corruptData, "line \(lineNumber) is not a Mien result", input: path, cause: "\(error)")
            }
        }
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
            } catch {
                throw MienError(.unreadable, "cannot read the JSON Lines file", input: path, cause: "\(error)")
            }
            if chunk.isEmpty { break }
            pending.append(chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try decode(pending[start..<newline])
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
        }
        try decode(pending)
    }
}
