public import MienCore

/// Finished episodes as CSV (`EventTable`), written atomically: the rows of each frame's finished episodes,
/// then those finished at the input's end.
public final class EventsCSVWriter: ResultWriter {
    private let file: AtomicFile
    private let input: String

    /// Creates `path`'s temporary file and writes the header row; `input` fills the `input` column.
    /// - Throws: `.ioFailure` naming `path`.
    public init(path: String, input: String) throws {
        file = try AtomicFile(path: path)
        self.input = input
        try file.write(EventTable.headerLine + "\n")
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws { try write(result.episodes) }

    public func finishEpisodes(_ episodes: [EpisodeEvent]) throws { try write(episodes) }

    private func write(_ episodes: [EpisodeEvent]) throws {
        for event in episodes {
            if let line = EventTable.line(for: event, input: input) { try file.write(line + "\n") }
        }
    }

    public func finish(_ end: InputEnd) throws { try file.commit() }

    public func fail(_ error: MienError) { file.abandon() }
}
