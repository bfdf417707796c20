import Foundation

/// Reads a text file line by line in bounded memory (output files can be far larger than memory).
struct LineReader {
    /// The file.
    let path: String
    /// Bytes read per call to the file system.
    static let chunkSize = 1 << 20

    /// Calls `body` with each line (without its newline) and its number from 1; a last line without a
    /// newline is passed too.
    /// - Throws: `.unreadable` naming the file, or what `body` throws.
    func forEachLine(_ body: (Data, Int) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MienError(.unreadable, "cannot open the file", input: path)
        }
        defer { try? handle.close() }
        var pending = Data()
        var number = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
            } catch {
                throw MienError(.unreadable, "cannot read the file", input: path, cause: "\(error)")
            }
            if chunk.isEmpty { break }
            pending.append(chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                number += 1
                try body(pending[start..<newline], number)
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
        }
        if !pending.isEmpty { try body(pending, number + 1) }
    }
}
