import Foundation
import Logging

/// When a participant socket's start passed each of its steps, so that a start that kept its page waiting says
/// where in the log (a page hears nothing until `ready` unless it is queued).
struct SocketStart: Sendable {
    private let began = ContinuousClock.now
    private var steps: [(name: String, at: ContinuousClock.Instant)] = []

    /// A start longer than this is logged with its steps.
    static let slow = Duration.seconds(5)

    /// The step `name` is done now.
    mutating func passed(_ name: String) { steps.append((name, .now)) }

    var elapsed: Duration { .now - began }

    /// Logs the steps of a start that took longer than `slow`.
    func logIfSlow(study: String, participant number: Int?, socket: String) {
        guard elapsed > Self.slow else { return }
        CollectedStudy.logger.warning(
            "study \(study): participant #\(number ?? 0)'s \(socket) socket was ready after \(summary)")
    }

    /// "12.3 s (its token 0.0 s, taking over its earlier socket 10.1 s, …)": each step's own time.
    var summary: String {
        var last = began
        let parts = steps.map { step -> String in
            defer { last = step.at }
            return "\(step.name) \(Self.seconds(step.at - last))"
        }
        return "\(Self.seconds(elapsed)) (\(parts.joined(separator: ", ")))"
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
