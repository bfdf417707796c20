/// The detector's own outputs, its delegate and its `results` sequence, fed from the one delivery as the
/// writers are (`WriterGroup`), before them, so the delegate hears a frame before any file has it, and in every
/// run of the detector (the writers serve one).
///
/// The delegate's calls keep Affdex's order: faces found before a frame's results, faces lost after them,
/// then the frame's episodes; the episodes still open at the end, then `detectorDidFinishProcessing` (a file
/// read to its end) or `didFail`.
final class DetectorCallbacks: Sendable {
    /// Every result, for `Detector.results`.
    let results: AsyncStream<DetectorResult>
    private let continuation: AsyncStream<DetectorResult>.Continuation
    private let listeners = Locked(Listeners())

    /// Who listens; weak because the detector owns its callbacks, and the caller its delegate.
    private struct Listeners {
        weak var detector: Detector?
        weak var delegate: (any DetectorDelegate)?
        /// Whether results go into `results` (see `Detector.results`).
        var feedsResults = false
    }

    init() {
        (results, continuation) = AsyncStream.makeStream(of: DetectorResult.self, bufferingPolicy: .unbounded)
    }

    /// Whether the caller is inside one of this detector's deliveries (a delegate callback or a writer, on a
    /// run's threads), where waiting for the run to end would wait for itself.
    var isDelivering: Bool { Self.deliveringFor == ObjectIdentifier(self) }

    /// Whose delivery the current thread is in: a task-local value, which synchronous code on plain threads
    /// binds too (the run's threads are not tasks).
    @TaskLocal private static var deliveringFor: ObjectIdentifier?

    /// Runs `body`, a delivery to the delegate, `results` or the writers, as this detector's (`isDelivering`).
    func delivering<R>(_ body: () throws -> R) rethrows -> R {
        try Self.$deliveringFor.withValue(ObjectIdentifier(self), operation: body)
    }

    /// Set once by the detector's initializer.
    func attach(_ detector: Detector) { listeners.withLock { $0.detector = detector } }

    var delegate: (any DetectorDelegate)? {
        get { listeners.withLock { $0.delegate } }
        set { listeners.withLock { $0.delegate = newValue } }
    }

    /// Results go into `results` from now on.
    func feedResults() { listeners.withLock { $0.feedsResults = true } }

    /// Results go into `results` from now on if nobody listens otherwise (the `for await` idiom after `start()`).
    func feedResultsUnlessDelegated() {
        listeners.withLock { if $0.delegate == nil { $0.feedsResults = true } }
    }

    var feedsResults: Bool { listeners.withLock { $0.feedsResults } }

    /// Ends `results`.
    func endResults() { continuation.finish() }

    /// The detector (nil once it is gone) and its delegate.
    private var listening: (Detector, (any DetectorDelegate)?)? {
        listeners.withLock { listeners in listeners.detector.map { ($0, listeners.delegate) } }
    }

    func write(_ result: DetectorResult) {
        guard case (let detector, let delegate)? = listening else { return }
        if let delegate {
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
        // Asked after the delegate: one that starts reading `results` in its first callback sees that frame.
        if feedsResults { continuation.yield(result) }
    }

    func unreadable(_ error: MienError) {
        guard case (let detector, let delegate)? = listening else { return }
        delegate?.detector(detector, couldNotRead: error)
    }

    /// The episodes still open at the end, then how the run ended.
    /// - Parameter readToEnd: a file read to its end (Affdex's `onProcessingFinished`); a live source or pushed
    ///   frames that end are not.
    func finish(_ end: InputEnd, episodes: [EpisodeEvent], readToEnd: Bool) {
        if case (let detector, let delegate?)? = listening {
            for event in episodes { delegate.detector(detector, didUpdate: event) }
            switch end {
            case .complete: if readToEnd { delegate.detectorDidFinishProcessing(detector) }
            case .stopped: break
            case .failed(let error): delegate.detector(detector, didFail: error)
            }
        }
        continuation.finish()
    }
}
