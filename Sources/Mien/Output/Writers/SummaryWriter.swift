import Foundation
public import MienCore

/// The per-face summary of one input (`InputSummary`: mean and max of every metric, share of frames each
/// emotion was dominant) as one JSON file, written when the input finishes.
public final class SummaryWriter: ResultWriter {
    private let path: String
    private var summary: InputSummary
    /// A report writer of the same input, whose summary is the same numbers: taken from it rather than
    /// computed twice.
    private let report: ReportWriter?

    /// A writer of `input`'s summary as JSON at `path`.
    /// - Parameters:
    ///   - path: the JSON file to write (atomically, when the input ends).
    ///   - input: the input's name, recorded in the summary.
    ///   - report: the same input's report writer, if there is one (finished before this one).
    public init(path: String, input: String, sharing report: ReportWriter? = nil) {
        self.path = path
        summary = InputSummary(input: input)
        self.report = report
    }

    /// What a folder left out.
    private var skipped: [SkippedItem] = []
    private var unreadable: [MienError] = []

    public func begin(_ info: SourceInfo) throws { skipped = info.skipped }

    public func unreadable(_ error: MienError) { unreadable.append(error) }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        if report == nil { summary.add(result) }
    }

    public func finishEpisodes(_ episodes: [EpisodeEvent]) throws {
        if report == nil { summary.add(episodes) }
    }

    public func finish(_ end: InputEnd) throws {
        let file = try AtomicFile(path: path)
        var finished = report?.part.summary ?? summary
        finished.end(end)
        finished.skipped = skipped
        for error in unreadable { finished.addUnreadable(error) }
        let data = try JSONLinesWriter.makeEncoder().encode(finished)
        try file.write(String(decoding: data, as: UTF8.self) + "\n")
        try file.commit()
    }

    public func fail(_ error: MienError) {}
}
