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

extension LineReader {
    /// Calls `body` with each non-empty line after the first, which must be `header` exactly (a CSV this Mien
    /// wrote), as text with its line number.
    /// - Throws: `.corruptData` naming `path` when the first line is not `header` (`what` names the kind of
    ///   file); what `body` throws.
    func forEachRow(header: String, what: String, _ body: (String, Int) throws -> Void) throws {
        try forEachLine { line, number in
            let text = String(decoding: line, as: UTF8.self)
            if number == 1 {
                guard text == header else {
                    throw MienError(.corruptData, "the header is not this Mien's \(what) header", input: path)
                }
                return
            }
            guard !text.isEmpty else { return }
            try body(text, number)
        }
    }
}
