import Logging
import MienCore
import ServiceLifecycle

/// Events that come in floods (refused consents, queued sockets), logged as one line per kind per interval.
///
/// The first of an interval is logged as it happens, the rest are counted, and the count is logged when the
/// interval ends: a burst of 980 refusals is two lines, and a single refusal still shows at once.
final class LogTally: Sendable {
    /// How long a kind's lines are counted after the one logged.
    let interval: Duration
    private let log: @Sendable (String) -> Void

    private struct Window {
        var started: ContinuousClock.Instant
        var line: String
        var more = 0
    }
    private let windows = Locked<[String: Window]>([:])

    /// - Parameter log: where lines go (the studies' log at info level).
    init(
        interval: Duration = .seconds(60),
        log: @escaping @Sendable (String) -> Void = { CollectedStudy.logger.info("\($0)") }
    ) {
        self.interval = interval
        self.log = log
    }

    /// Logs `line` when it is the first of its `kind` in an interval, counts it otherwise.
    /// - Parameter kind: what makes two lines the same event (study and reason; never a participant).
    func note(_ kind: String, _ line: String, at now: ContinuousClock.Instant = .now) {
        let lines = windows.withLock { windows in
            var lines = Self.ended(&windows, at: now, after: interval)
            if windows[kind] != nil {
                windows[kind]?.more += 1
            } else {
                windows[kind] = Window(started: now, line: line)
                lines.append(line)
            }
            return lines
        }
        for line in lines { log(line) }
    }

    /// Logs the counts of the intervals that ended by `now` (every one with `all`: the server stops).
    func flush(at now: ContinuousClock.Instant = .now, all: Bool = false) {
        let lines = windows.withLock { Self.ended(&$0, at: now, after: all ? .zero : interval) }
        for line in lines { log(line) }
    }

    private static func ended(
        _ windows: inout [String: Window], at now: ContinuousClock.Instant, after interval: Duration
    ) -> [String] {
        var lines: [String] = []
        for (kind, window) in windows where now - window.started >= interval {
            windows.removeValue(forKey: kind)
            guard window.more > 0 else { continue }
            let seconds = Int(clamping: (now - window.started).components.seconds)
            lines.append("\(window.line); \(window.more) more like it in the \(seconds) s since")
        }
        return lines.sorted()
    }
}

/// Logs `CollectedStudy.tally`'s counts as their intervals end, while the server runs, and what is left at the end.
struct LogTallyFlush: Service {
    let tally: LogTally

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(5)) } catch { break }
                tally.flush()
            }
        }
        tally.flush(all: true)
    }
}
