package import Foundation
public import MienCore

/// The per-face summary of one input (`InputSummary`: mean and max of every metric, share of frames each
/// emotion was dominant) as one JSON file, written when the input finishes.
public final class SummaryWriter: ResultWriter {
    /// The file, or whoever keeps the summary's bytes (a study's database).
    private let path: String?
    private let sink: ((Data) throws -> Void)?
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
        sink = nil
        summary = InputSummary(input: input)
        self.report = report
    }

    /// A writer of `input`'s summary that hands the bytes `init(path:input:sharing:)` would write to `sink`.
    package init(input: String, sink: @escaping (Data) throws -> Void) {
        path = nil
        self.sink = sink
        summary = InputSummary(input: input)
        report = nil
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
        var finished = report?.part.summary ?? summary
        finished.end(end)
        finished.skipped = skipped
        for error in unreadable { finished.addUnreadable(error) }
        var data = try JSONLinesWriter.makeEncoder().encode(finished)
        data.append(UInt8(ascii: "\n"))
        if let sink { try sink(data) }
        if let path {
            let file = try AtomicFile(path: path)
            try file.write(data)
            try file.commit()
        }
    }

    public func fail(_ error: MienError) {}
}
