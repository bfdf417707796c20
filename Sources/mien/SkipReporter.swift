import Mien

/// Reports the pictures of a folder that could not be read, and remembers that one was; counts the frames
/// written (replayed ones of a resumed run included), for the shard manifest.
final class SkipReporter: ResultWriter {
    private(set) var unreadablePictures = false
    private(set) var frames = 0

    func write(_ result: DetectorResult, frame: Frame?) throws { frames += 1 }

    func unreadable(_ error: MienError) {
        unreadablePictures = true
        Diagnostics.report(error)
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
