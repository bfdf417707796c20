/// What the Affdex-style calls keep beside the detector's runs: the delegate and `results` (`DetectorCallbacks`,
/// heard in every run) and the writers the detector was made with, which serve the first `start()`.
///
/// Everything else they act on is "the current run", the last one the detector began (`Detector.lastRun`).
final class AffdexLayer: Sendable {
    let callbacks = DetectorCallbacks()
    /// The writers the detector was made with, until a `start()` has started its first run with them.
    let firstWriters: Locked<WriterGroup?>

    init(writers: sending [any ResultWriter]) {
        firstWriters = Locked(WriterGroup(callbacks: callbacks, writers))
    }
}
