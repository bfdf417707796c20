/// The detector's own outputs, its delegate and its `results` sequence, fed from the one delivery as the
/// writers are (`WriterGroup`), before them, so the delegate hears a frame before any file has it, and in every
/// run of the detector (the writers serve one).
///
/// The delegate's calls keep Affdex's order: faces found before a frame's results, faces lost after them,
/// then the frame's episodes; the episodes still open at the end, then `detectorDidFinishProcessing` (a file
/// read to its end) or `didFail`.
final class CallbackWriter: ResultWriter {
    /// Set once by the detector's initializer; weak because the detector owns its writers.
    weak var detector: Detector?

    func write(_ result: DetectorResult, frame: Frame?) {
        guard let detector else { return }
        if let delegate = detector.delegate {
            for event in result.events {
                switch event {
                case .found(let id): result.faces?[id].map { delegate.detector(detector, didFind: $0) }
                case .returned(let id): result.faces?[id].map { delegate.detector(detector, didFindReturning: $0) }
                case .lost: break
                }
            }
            delegate.detector(detector, didProcess: result)
            for case .lost(let id) in result.events { delegate.detector(detector, didLoseFace: id) }
            for event in result.episodes { delegate.detector(detector, didUpdate: event) }
        }
        if detector.control.withLock({ $0.feedsStream }) { detector.continuation.yield(result) }
    }

    func unreadable(_ error: MienError) {
        guard let detector else { return }
        detector.delegate?.detector(detector, couldNotRead: error)
    }

    func finishEpisodes(_ episodes: [EpisodeEvent]) {
        guard let detector, let delegate = detector.delegate else { return }
        for event in episodes { delegate.detector(detector, didUpdate: event) }
    }

    func finish(_ end: InputEnd) {
        guard let detector else { return }
        switch end {
        case .complete:
            // The end of a file (Affdex's `onProcessingFinished`); a live source or pushed frames that end are
            // not a file read to its end.
            if detector.source.readsItself && !detector.source.isLive {
                detector.delegate?.detectorDidFinishProcessing(detector)
            }
        case .stopped: break
        case .failed(let error): detector.delegate?.detector(detector, didFail: error)
        }
        detector.continuation.finish()
    }

    /// Not called: a writer's failure reaches the delegate as the run's failure (`finish(.failed)`).
    func fail(_ error: MienError) {}
}
