import Foundation
import Logging
import MienCore

/// When a participant socket's start passed each of its steps, so that a start that kept its page waiting says
/// where in the log (a page hears nothing until `ready` unless it is queued): a start that took longer than `slow`
/// once it is ready, and one still not ready after `stuck`, while it waits, with the step it waits after.
final class SocketStart: Sendable {
    private let began = ContinuousClock.now
    private let state = Locked(State())

    private struct State {
        var steps: [(name: String, at: ContinuousClock.Instant)] = []
        var watcher: Task<Void, Never>?
        var finished = false
    }

    /// A start longer than this is logged with its steps.
    static let slow = Duration.seconds(5)

    /// A start not ready after these times is logged while it waits (a page gives up after about a minute).
    static let stuck: [Duration] = [.seconds(15), .seconds(45)]

    /// The step `name` is done now.
    func passed(_ name: String) { state.withLock { $0.steps.append((name, .now)) } }

    var elapsed: Duration { .now - began }

    /// Logs, while the start waits silently from now, each of `stuck` it is still not ready at (a start told its
    /// place in the queue is not silent: `finish` then, and `watch` again once it has its place).
    func watch(study: String, participant number: Int?, socket: String) {
        let task = Task { [self] in
            var waited = Duration.zero
            for mark in Self.stuck {
                do { try await Task.sleep(for: mark - waited) } catch { return }
                waited = mark
                let (finished, last) = state.withLock { ($0.finished, $0.steps.last?.name) }
                guard !finished, !Task.isCancelled else { return }
                CollectedStudy.logger.warning(
                    "study \(study): participant #\(number ?? 0)'s \(socket) socket is not ready after \(summary): waiting after \(last ?? "its start")"
                )
            }
        }
        state.withLock { state -> Task<Void, Never>? in
            defer {
                state.watcher = task
                state.finished = false
            }
            return state.watcher
        }?.cancel()
    }

    /// The start ended (ready, or refused) or its page hears why it waits: nothing more is logged while it waits.
    func finish() {
        state.withLock { state -> Task<Void, Never>? in
            state.finished = true
            return state.watcher
        }?.cancel()
    }

    /// Logs the steps of a start that took longer than `slow`.
    func logIfSlow(study: String, participant number: Int?, socket: String) {
        guard elapsed > Self.slow else { return }
        CollectedStudy.logger.warning(
            "study \(study): participant #\(number ?? 0)'s \(socket) socket was ready after \(summary)")
    }

    /// "12.3 s (its token 0.0 s, taking over its earlier socket 10.1 s, …)": each step's own time.
    var summary: String {
        var last = began
        let parts = state.withLock { $0.steps }.map { step -> String in
            defer { last = step.at }
            return "\(step.name) \(Self.seconds(step.at - last))"
        }
        return "\(Self.seconds(elapsed)) (\(parts.joined(separator: ", ")))"
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
