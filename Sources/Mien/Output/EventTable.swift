/// Finished episodes as CSV (`<name>.events.csv`): one row per episode of a face's metric or blink.
///
/// Columns: `input`, `faceId`, `metric` (`EpisodeEvent.metric`), `onset`, `apex`, `offset` (seconds on the
/// input's clock), `apexValue`, `duration` (seconds) and `ending` (`fell`, `lost`, `cut`, `ended`).
package enum EventTable {
    /// Every column, in order.
    package static let header = [
        "input", "faceId", "metric", "onset", "apex", "apexValue", "offset", "duration", "ending",
    ]

    /// The header as one CSV line (without the line break).
    package static var headerLine: String { header.joined(separator: ",") }

    /// The row of a finished episode; nil for one that only started.
    package static func line(for event: EpisodeEvent, input: String) -> String? {
        guard let offset = event.offset, let ending = event.ending else { return nil }
        let cells = [
            input, String(event.faceId), event.metric, ResultTable.number(event.onset, places: 3),
            ResultTable.number(event.apex, places: 3), ResultTable.number(event.apexValue),
            ResultTable.number(offset, places: 3), ResultTable.number(offset - event.onset, places: 3), ending.rawValue,
        ]
        return cells.map(ResultTable.quoted).joined(separator: ",")
    }
}
