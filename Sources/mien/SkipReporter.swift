import Mien

/// Reports the pictures of a folder that could not be read, and remembers that one was.
final class SkipReporter: ResultWriter {
    private(set) var skippedPictures = false

    func write(_ result: DetectorResult, frame: Frame?) throws {}

    func skipped(_ error: MienError) {
        skippedPictures = true
        Diagnostics.report(error)
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
