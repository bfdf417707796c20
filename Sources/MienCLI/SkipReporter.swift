import Logging
import Mien
import MienCore

/// Reports the pictures of a folder that could not be read, and remembers that one was; reports the
/// folder's entries that are not read (not pictures, sub-folders); counts the frames written (replayed ones
/// of a resumed run included), for the shard manifest.
final class SkipReporter: ResultWriter, Sendable {
    /// Written by the run's thread, read once it has ended.
    private let state = Locked((unreadablePictures: false, frames: 0))
    private let input: String

    /// Whether a picture of the input could not be read.
    var unreadablePictures: Bool { state.withLock { $0.unreadablePictures } }
    /// Frames written.
    var frames: Int { state.withLock { $0.frames } }

    /// - Parameter input: the input's name, as warnings give it.
    init(input: String) { self.input = input }

    func begin(_ info: SourceInfo) throws {
        for item in info.skipped {
            Diagnostics.logger.warning("\(input): skipped \(item.file): \(item.reason)")
        }
    }

    func write(_ result: DetectorResult, frame: Frame?) throws { state.withLock { $0.frames += 1 } }

    func unreadable(_ error: MienError) {
        state.withLock { $0.unreadablePictures = true }
        Diagnostics.report(error)
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
