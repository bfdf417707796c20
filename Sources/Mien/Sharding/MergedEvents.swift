import Foundation

/// The merged `events.csv`: every input's finished episodes (`EventTable` rows, an `input` column first).
///
/// Copied from a task's `<name>.events.csv`, or rebuilt from its JSON Lines when it wrote none (`--format
/// jsonl`); the JSON Lines hold each frame's episodes but not those still open when the input ended, which
/// are then closed at the last analysed frame as `ended`.
final class MergedEvents {
    private let file: AtomicFile
    /// Rows written.
    private(set) var count = 0

    /// Starts `file` with the header row.
    init(file: AtomicFile) throws {
        self.file = file
        try file.write(EventTable.headerLine + "\n")
    }

    /// Copies a task's events CSV.
    /// - Throws: `.corruptData` naming the file when its header is not this Mien's.
    func copy(eventsPath: String) throws {
        var rows = ""
        try LineReader(path: eventsPath).forEachRow(header: EventTable.headerLine, what: "events") { text, _ in
            rows += text + "\n"
            count += 1
        }
        try file.write(rows)
    }

    /// The episodes of one input's replayed results: finished ones as they come, and at `finish(input:)` the
    /// ones still open.
    struct Replay {
        let input: String
        var rows = ""
        var count = 0
        private var open: [String: EpisodeEvent] = [:]
        private var lastTime: Double?

        init(input: String) { self.input = input }

        mutating func add(_ result: DetectorResult) {
            if result.processed { lastTime = result.timestamp }
            for event in result.episodes {
                let key = "\(event.faceId) \(event.metric)"
                if event.change == .started { open[key] = event } else { open[key] = nil }
                if let line = EventTable.line(for: event, input: input) {
                    rows += line + "\n"
                    count += 1
                }
            }
        }

        mutating func finish() {
            guard let lastTime else { return }
            for key in open.keys.sorted() {
                guard let started = open[key] else { continue }
                let ended = EpisodeEvent(
                    faceId: started.faceId, metric: started.metric, change: .finished, onset: started.onset,
                    apex: started.apex, apexValue: started.apexValue, offset: lastTime, ending: .ended)
                if let line = EventTable.line(for: ended, input: input) {
                    rows += line + "\n"
                    count += 1
                }
            }
            open = [:]
        }
    }

    /// Writes a replayed input's rows.
    func write(_ replay: Replay) throws {
        try file.write(replay.rows)
        count += replay.count
    }

    func commit() throws { try file.commit() }
}
