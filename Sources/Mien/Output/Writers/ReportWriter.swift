public import MienCore

/// Gathers one input's part of the HTML report (`InputReport`: timelines, thumbnails from the frames'
/// pixels, the summary); `HTMLReport.render` makes the page from the parts of every input.
public final class ReportWriter: ResultWriter, Sendable {
    /// Written by the run's thread, read once the run has ended.
    private let state: Locked<(part: InputReport, unreadablePictures: Bool)>

    /// The input's part; complete once the input has finished (or failed), with `problem` set when it did
    /// not end normally.
    package var part: InputReport { state.withLock { $0.part } }

    /// A report of `input`, gathered frame by frame.
    public init(input: String) { state = Locked((InputReport(input: input), false)) }

    /// The thumbnails are cut from the frames.
    public var wantsFrames: Bool { true }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        state.withLock { $0.part.add(result, frame: frame) }
    }

    /// A picture of the input's folder could not be read.
    public func unreadable(_ error: MienError) { state.withLock { $0.unreadablePictures = true } }

    public func finishEpisodes(_ episodes: [EpisodeEvent]) throws { state.withLock { $0.part.add(episodes) } }

    public func finish(_ end: InputEnd) throws {
        state.withLock { state in
            switch end {
            case .complete: if state.unreadablePictures { state.part.problem = "some pictures could not be read" }
            case .stopped: state.part.problem = state.part.problem ?? "interrupted"
            case .failed(let error): state.part.problem = error.description
            }
        }
    }

    public func fail(_ error: MienError) { state.withLock { $0.part.problem = error.description } }
}
