import Foundation

/// `DetectorResult`s as CSV: one row per face per processed frame, columns in Affdex spelling, empty cells
/// for metrics that were not asked for (or could not be measured); last, `file`: the picture's name for a
/// frame of a folder of pictures, empty for other inputs.
///
/// RFC 4180 quoting; the header row is
/// plain names, so pandas (`read_csv`) and R (`read.csv`) read the file as is. Affdex names an expression
/// and an emoji `smirk`; the emoji's column is `smirkEmoji` so every column name is unique.
package enum ResultTable {
    /// The columns every row has before the metrics': time, frame, face, box, head pose, brightness, flags.
    package static let faceColumns = [
        "TimeStamp", "frame", "faceId", "x", "y", "width", "height", "interocularDistance", "pitch", "yaw", "roll",
        "brightness", "flags",
    ]

    /// Every column, in order: the face's, then every metric's (`MetricCatalog.columns`), then `file`.
    package static let header: [String] = faceColumns + MetricCatalog.columns.map(\.name) + ["file"]

    /// The header as one CSV line (without the line break).
    package static var headerLine: String { header.joined(separator: ",") }

    /// One CSV line per face of `result` (none for an unprocessed frame or a frame without faces).
    package static func lines(for result: DetectorResult) -> [String] {
        guard let faces = result.faces else { return [] }
        return faces.keys.sorted().compactMap { id in faces[id].map { line(face: $0, result: result) } }
    }

    private static func line(face: FaceResult, result: DetectorResult) -> String {
        var cells: [String] = [
            number(result.timestamp, places: 3), String(result.frameIndex), String(face.faceId),
            number(face.faceBounds.x), number(face.faceBounds.y), number(face.faceBounds.width),
            number(face.faceBounds.height), number(face.orientation?.interocularDistance),
            number(face.orientation?.pitch), number(face.orientation?.yaw), number(face.orientation?.roll),
            number(face.quality?.brightness), face.flags.map(\.rawValue).joined(separator: ";"),
        ]
        for column in MetricCatalog.columns {
            switch column.cell(face) {
            case .number(let value, let places): cells.append(number(value, places: places))
            case .text(let text): cells.append(text ?? "")
            }
        }
        cells.append(result.file ?? "")
        return cells.map(quoted).joined(separator: ",")
    }

    /// A number rounded to `places` decimals, without a trailing `.0`; empty when absent or not finite.
    package static func number(_ value: Double?, places: Int = 2) -> String {
        guard let value, value.isFinite else { return "" }
        let rounded = value.rounded(toPlaces: places)
        // A whole number is written without ".0"; one beyond 2^53 (nothing measured is) as Swift writes a Double.
        if rounded == rounded.rounded(), let whole = Int(checked: rounded) { return String(whole) }
        return String(rounded)
    }

    /// RFC 4180: a cell with a comma, quote or line break is quoted, quotes doubled.
    package static func quoted(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
