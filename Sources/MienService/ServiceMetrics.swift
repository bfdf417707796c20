import Foundation
public import Prometheus

/// The service's Prometheus metrics (`GET /metrics`), in a registry of its own so that two services in
/// one process (tests) do not share counts.
public final class ServiceMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// Frames analysed (live frames and `/v1/analyze` pictures).
    let framesAnalysed: Counter
    /// Live frames reported unprocessed: left out by the session's rate, or dropped because analysis fell
    /// behind (the oldest waiting frame goes).
    let framesUnprocessed: Counter
    /// Live frames refused before decoding (undecodable, too large, too fast, time going backwards).
    let framesRefused: Counter
    /// From a frame's arrival (a live message or an upload's last byte) to its result being sent.
    let latency: DurationHistogram
    /// Live sessions open now.
    let openSessions: Gauge
    /// Jobs waiting or running.
    let queuedJobs: Gauge
    /// Study sockets (framing checks and stimuli) holding a place in the analysis budget.
    let studySockets: Gauge
    /// Study sockets waiting for a place.
    let studyWaiting: Gauge
    /// The analysis budget now, frames per second (it shrinks when frames are dropped for want of time).
    let studyFrameBudget: Gauge

    /// Latency buckets: 5 ms to 2 s, finer where a live session should be (under 60 ms).
    static let latencyBuckets: [Duration] = [5, 10, 20, 30, 40, 60, 80, 120, 250, 500, 1000, 2000].map {
        .milliseconds($0)
    }

    public init() {
        framesAnalysed = registry.makeCounter(
            descriptor: .init(metricName: "mien_frames_analysed", unitName: "total", helpText: "Frames analysed."))
        framesUnprocessed = registry.makeCounter(
            descriptor: .init(
                metricName: "mien_frames_unprocessed", unitName: "total",
                helpText:
                    "Live frames reported unprocessed (left out by the rate, or dropped when analysis fell behind)."))
        framesRefused = registry.makeCounter(
            descriptor: .init(
                metricName: "mien_frames_refused", unitName: "total",
                helpText: "Live frames refused before analysis (bad, too large, too fast)."))
        latency = registry.makeDurationHistogram(
            descriptor: .init(
                metricName: "mien_frame_latency", unitName: "seconds",
                helpText: "From a frame's arrival to its result being sent."),
            buckets: Self.latencyBuckets)
        openSessions = registry.makeGauge(
            descriptor: .init(metricName: "mien_live_sessions", unitName: "", helpText: "Live sessions open."))
        queuedJobs = registry.makeGauge(
            descriptor: .init(metricName: "mien_jobs_queued", unitName: "", helpText: "Jobs waiting or running."))
        studySockets = registry.makeGauge(
            descriptor: .init(
                metricName: "mien_study_sockets", unitName: "",
                helpText: "Study participant sockets (framing checks and stimuli) holding a place."))
        studyWaiting = registry.makeGauge(
            descriptor: .init(
                metricName: "mien_study_waiting", unitName: "",
                helpText: "Study participant sockets waiting for a place."))
        studyFrameBudget = registry.makeGauge(
            descriptor: .init(
                metricName: "mien_study_frame_budget", unitName: "",
                helpText: "Frames per second the studies' sockets share now."))
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
