import Mien
import Prometheus

/// One live session's results, written to its socket: the detector's writer, like the command line's
/// JSON Lines file.
///
/// For each result, in frame order: a `found` message for each face first seen on the frame, the `result`
/// (with `latencyMs` from the frame's arrival at the service), then a `lost` message for each face gone. A
/// frame that could not be decoded is answered with an `error` message. The service's metrics are counted
/// here, once per frame.
final class LiveSocketWriter: ResultWriter, Sendable {
    private let outbox: LiveOutbox
    private let metrics: ServiceMetrics

    init(outbox: LiveOutbox, metrics: ServiceMetrics) {
        self.outbox = outbox
        self.metrics = metrics
    }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        if result.processed {
            metrics.framesAnalysed.increment()
            if let latency = result.latency { metrics.latency.record(latency) }
        } else {
            metrics.framesUnprocessed.increment()
        }
        for id in result.found {
            outbox.send(LiveMessage.event("found", faceId: id, frameIndex: result.frameIndex).text())
        }
        let milliseconds = result.latency.map { ($0.seconds * 1000).rounded(toPlaces: 2) }
        outbox.send(LiveMessage.result(result, latencyMs: milliseconds).text())
        for episode in result.episodes {
            outbox.send(LiveMessage.episode(episode, frameIndex: result.frameIndex).text())
        }
        for id in result.lost {
            outbox.send(LiveMessage.event("lost", faceId: id, frameIndex: result.frameIndex).text())
        }
    }

    /// A frame the detector could not decode (or over the pixel limit): refused, the session goes on.
    func unreadable(_ error: MienError) {
        metrics.framesRefused.increment()
        outbox.send(LiveMessage.failure(ErrorBody(error)).text())
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
