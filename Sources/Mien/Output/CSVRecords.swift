import Foundation

/// Reads CSV text (RFC 4180) into rows of cells.
///
/// Quoted cells may hold commas, doubled quotes and line breaks (the inverse of `ResultTable.quoted`). Used for the files people write by hand or in a spreadsheet
/// (a study's manifest and segments) and for the events CSV a study reads back.
package enum CSVRecords {
    /// The separators a file may use: spreadsheets in locales with a decimal comma write `;`, and "CSV" exports
    /// are often tab-separated.
    package static let separators: [Unicode.Scalar] = [",", ";", "\t"]

    /// The separator of `text`: the one of `separators` found most often outside quotes in its first line
    /// (a comma when none is, or on a tie).
    package static func separator(of text: String) -> Unicode.Scalar {
        var counts: [Unicode.Scalar: Int] = [:]
        var quoted = false
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted.toggle() }
            if !quoted && scalar == "\n" { break }
            if !quoted && separators.contains(scalar) { counts[scalar, default: 0] += 1 }
        }
        return separators.max {
            counts[$0, default: 0] < counts[$1, default: 0]
                || (counts[$0, default: 0] == counts[$1, default: 0] && $1 == ",")
        } ?? ","
    }

    /// A separator's name for messages.
    package static func name(of separator: Unicode.Scalar) -> String {
        separator == "\t" ? "tabs" : "'\(separator)'"
    }

    /// The rows of a file of labels or fixtures, read as `parse` reads CSV (quotes, commas in cells).
    ///
    /// Lines starting with `#` are comments and rows with every cell empty are skipped. The one reader of every
    /// CSV Mien's evaluation and tests read, as `read(path:)` is of those people write.
    /// - Throws: `.unreadable` naming `path` when it cannot be read as UTF-8; `.corruptData` as `parse`.
    package static func rows(ofCommented path: String) throws -> [[String]] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw MienError(.unreadable, "cannot be read as UTF-8 text", input: path) }
        let kept = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        return try parse(kept, source: path).filter { row in row.contains { !$0.isEmpty } }
    }

    /// The rows of `text`, each its cells in order; a last empty line and `\r\n` line ends are accepted.
    /// - Throws: `.corruptData` naming `source` when a quoted cell is never closed.
    package static func parse(_ text: String, source: String, separator: Unicode.Scalar = ",") throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return iterator.next()
        }
        while let scalar = next() {
            if quoted {
                if scalar == "\"" {
                    let following = next()
                    if following == "\"" {
                        cell.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                        pending = following
                    }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where cell.isEmpty: quoted = true
            case separator:
                row.append(cell)
                cell = ""
            case "\r": continue
            case "\n":
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            default: cell.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw MienError(.corruptData, "a quoted cell is never closed", input: source) }
        if !cell.isEmpty || !row.isEmpty {
            row.append(cell)
            rows.append(row)
        }
        // A BOM (spreadsheets write one) is not part of the first column's name.
        if let first = rows.first?.first, first.hasPrefix("\u{FEFF}") { rows[0][0] = String(first.dropFirst()) }
        return rows
    }

    /// The rows of a CSV file whose first row names the columns, as dictionaries from column name to cell.
    ///
    /// With their line numbers (the header is line 1); rows with every cell empty are skipped. The separator is
    /// the file's own (`separator(of:)`) and is returned.
    /// - Throws: `.notFound`, `.unreadable` or `.corruptData` naming `path`.
    package static func read(
        path: String
    ) throws -> (columns: [String], rows: [(line: Int, cells: [String: String])], separator: Unicode.Scalar) {
        guard FileManager.default.fileExists(atPath: path) else { throw MienError(.notFound, "not found", input: path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MienError(.unreadable, "cannot be read", input: path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw MienError(.corruptData, "is not UTF-8 text", input: path)
        }
        return try read(text: text, source: path)
    }

    /// The rows of CSV `text` as `read(path:)` gives a file's; `source` names it in errors.
    /// - Throws: `.corruptData` naming `source`.
    package static func read(
        text: String, source: String
    ) throws -> (columns: [String], rows: [(line: Int, cells: [String: String])], separator: Unicode.Scalar) {
        let separator = separator(of: text)
        let records = try parse(text, source: source, separator: separator)
        guard let header = records.first else {
            throw MienError(.corruptData, "is empty (no header row)", input: source)
        }
        let columns = header.map { $0.trimmingCharacters(in: .whitespaces) }
        var rows: [(line: Int, cells: [String: String])] = []
        for (offset, record) in records.dropFirst().enumerated() {
            if record.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            var cells: [String: String] = [:]
            for (index, column) in columns.enumerated() where index < record.count {
                cells[column] = record[index].trimmingCharacters(in: .whitespaces)
            }
            rows.append((offset + 2, cells))
        }
        return (columns, rows, separator)
    }
}
