public import MienCore

/// Where a `Detector`'s results go: JSON Lines, CSV, a summary, a report, annotated pictures, a socket.
///
/// A writer receives one input's results in frame order, on one thread at a time (the detector's), then
/// exactly one of `finish(_:)` (the input ended: complete, stopped or failed; commit what was written) or
/// `fail(_:)` (writing itself failed; nothing may be left looking complete). Writers are handed to the
/// detector at creation (`Detector(source:options:models:writers:)`); every output is one, so a new
/// output is a new writer, never a new frame loop.
public protocol ResultWriter: AnyObject {
    /// Whether `write` needs the frame's pixels (annotation, report thumbnails); the detector hands them
    /// over only then. Default false.
    var wantsFrames: Bool { get }
    /// The input the detector opened, before its first frame (sources the detector reads itself only).
    /// Default: nothing.
    /// - Throws: when the output cannot suit the input; `start()` then fails with this error.
    func begin(_ info: SourceInfo) throws
    /// One frame's result, processed or not; `frame` is the analysed frame when `wantsFrames` (nil for a
    /// frame a live source dropped before it was analysed, and for results replayed from a checkpoint).
    /// - Throws: when the output cannot be written; the detector then stops the input and calls `fail`.
    func write(_ result: DetectorResult, frame: Frame?) throws
    /// An item of the input could not be read or analysed (a picture of a folder, a pushed frame nobody
    /// waited for); the input goes on. Default: nothing.
    func unreadable(_ error: MienError)
    /// The episodes still open when the input ended, finished (`ended`, or `lost` for a face waiting to be
    /// re-identified), just before `finish(_:)`. Default: nothing.
    func finishEpisodes(_ episodes: [EpisodeEvent]) throws
    /// The input ended; `end` says how. Commit the output (for a stopped or failed input too: it holds
    /// the frames done).
    /// - Throws: when committing fails (the input then counts as failed).
    func finish(_ end: InputEnd) throws
    /// Writing failed (here or in another writer of the same input): remove what was written.
    func fail(_ error: MienError)
}

extension ResultWriter {
    public var wantsFrames: Bool { false }
    public func begin(_ info: SourceInfo) throws {}
    public func unreadable(_ error: MienError) {}
    public func finishEpisodes(_ episodes: [EpisodeEvent]) throws {}
}

/// How one input ended.
public enum InputEnd: Sendable, Equatable {
    /// Every frame was read (or `maximumFrames` were).
    case complete
    /// `stop()` was called before the end (Ctrl-C, a server closing a session).
    case stopped
    /// The source or the analysis failed; the frames before it were delivered.
    case failed(MienError)

    /// The error, when the input failed.
    public var error: MienError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
