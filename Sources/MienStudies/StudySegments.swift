/// Reads a study's `--segments` file: a CSV with `stimulus`, `name`, `start` and `end` (seconds of stimulus time).
import Mien

package enum StudySegments {
    /// - Throws: `.invalidArgument` naming the file and line of a row that is not a segment (or a missing column).
    package static func read(path: String) throws -> [StudySegment] {
        let table = try CSVRecords.read(path: path)
        let missing = ["stimulus", "name", "start", "end"].filter { !table.columns.contains($0) }
        if !missing.isEmpty {
            throw MienError(
                .invalidArgument,
                "the segments file lacks \(missing.joined(separator: ", ")) (needs stimulus, name, start, end)",
                input: path)
        }
        return try table.rows.map { line, cells in
            guard let stimulus = cells["stimulus"], !stimulus.isEmpty, let name = cells["name"], !name.isEmpty,
                let start = cells["start"].flatMap(Double.init), let end = cells["end"].flatMap(Double.init),
                start.isFinite, end.isFinite, start >= 0, end > start
            else {
                throw MienError(
                    .invalidArgument, "line \(line) is not a segment (stimulus, name, start ≥ 0, end > start)",
                    input: path)
            }
            return StudySegment(stimulus: stimulus, name: name, start: start, end: end)
        }
    }
}
