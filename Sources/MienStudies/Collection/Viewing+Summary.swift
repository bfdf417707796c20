import Foundation
import Mien

/// A viewing's spans (hidden, out of full screen, out of focus) and its figures (`ViewingFigures`).
extension Viewing {
    /// Stimulus time spans with the page in a state `off` begins and `on` ends (hidden until visible): from each
    /// `off` event to the next `on`, or to `duration` when none came.
    package func spans(from off: Kind, to on: Kind, duration: Double) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        var since: Double?
        for event in events {
            if event.kind == off, since == nil {
                since = event.at
            } else if event.kind == on, let start = since {
                if event.at > start { spans.append(start...event.at) }
                since = nil
            }
        }
        if let start = since, duration > start { spans.append(start...duration) }
        return spans
    }

    /// The figures, over a stimulus lasting `duration` seconds.
    package func figures(duration: Double) -> ViewingFigures {
        // A skipped stimulus played until the skip: what was still open then ends there.
        let duration = skippedAt.map { min($0, duration) } ?? duration
        func total(_ spans: [ClosedRange<Double>]) -> Double {
            spans.reduce(0) { $0 + $1.upperBound - $1.lowerBound }
        }
        let stalls = events.filter { $0.kind == .stall }
        var figures = ViewingFigures(
            hiddenSeconds: total(spans(from: .hidden, to: .visible, duration: duration)),
            outOfFullscreenSeconds: total(spans(from: .fullscreenExit, to: .fullscreenEnter, duration: duration)),
            unfocusedSeconds: total(spans(from: .blur, to: .focus, duration: duration)),
            stalls: stalls.count, stallSeconds: stalls.reduce(0) { $0 + ($1.length ?? 0) },
            seeks: events.filter { $0.kind == .seek || $0.kind == .rate }.count,
            cameraFps: camera?.frameRate, timingSpreadMs: timing?.p95, skippedAt: skippedAt)
        figures.stallSpans = stalls.map { $0.at...($0.at + ($0.length ?? 0)) }
        return figures
    }
}
