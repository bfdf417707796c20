public import MienCore

/// Gathers one input's part of the HTML report (`InputReport`: timelines, thumbnails from the frames'
/// pixels, the summary); `HTMLReport.render` makes the page from the parts of every input.
public final class ReportWriter: ResultWriter {
    /// The input's part; complete once the input has finished (or failed), with `problem` set when it did
    /// not end normally.
    package private(set) var part: InputReport

    /// A report of `input`, gathered frame by frame.
    public init(input: String) { part = InputReport(input: input) }

    /// The thumbnails are cut from the frames.
    public var wantsFrames: Bool { true }

    /// Whether a picture of the input's folder could not be read.
    private var unreadablePictures = false

    public func write(_ result: DetectorResult, frame: Frame?) throws { part.add(result, frame: frame) }

    public func unreadable(_ error: MienError) { unreadablePictures = true }

    public func finishEpisodes(_ episodes: [EpisodeEvent]) throws { part.add(episodes) }

    public func finish(_ end: InputEnd) throws {
        switch end {
        case .complete: if unreadablePictures { part.problem = "some pictures could not be read" }
        case .stopped: part.problem = part.problem ?? "interrupted"
        case .failed(let error): part.problem = error.description
        }
    }

    public func fail(_ error: MienError) { part.problem = error.description }
}
