import Foundation
import MienCore

/// Progress of every running input on standard error.
///
/// On a terminal: one line redrawn at most every `terminalInterval` seconds, naming each running input
/// with frames done / expected, frames/s and ETA, and how many inputs are finished. Otherwise (a log
/// file, CI): a plain line per input every `logInterval` seconds and when it ends, so logs stay readable.
final class ProgressBoard: Sendable {
    /// One input's counters.
    struct Entry {
        var input: String
        var expected: Int?
        var frames = 0
        var start = ContinuousClock.now
        var lastLog = ContinuousClock.now

        var rate: Double { Double(frames) / max(ProgressBoard.seconds(ContinuousClock.now - start), 1e-3) }

        /// "name 120/300 frames, 35.2 frames/s, ETA 5 s".
        func text(final: Bool) -> String {
            var text = "\(input): \(frames)"
            if let expected, expected > 0 {
                text += "/\(expected) frames, \(String(format: "%.1f", rate)) frames/s"
                if !final { text += ", ETA \(Int((Double(max(0, expected - frames)) / max(rate, 1e-3)).rounded())) s" }
            } else {
                text += " frames, \(String(format: "%.1f", rate)) frames/s"
            }
            return final ? text + ", done" : text
        }
    }

    /// Seconds between redraws of the terminal line.
    static let terminalInterval = 0.2
    /// Seconds between plain log lines per input when standard error is not a terminal.
    static let logInterval = 5.0

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextToken = 0
        var finished = 0
        var lastDraw = ContinuousClock.now
    }

    private let state = Locked(State())
    private let total: Int
    private let terminal: Bool

    /// - Parameter total: the number of inputs of the run.
    init(total: Int, terminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.total = total
        self.terminal = terminal
    }

    /// Starts showing an input; returns the token for `advance` and `finish`.
    func begin(_ input: String, expectedFrames: Int?) -> Int {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.entries[token] = Entry(input: input, expected: expectedFrames)
            return token
        }
    }

    /// One more frame of `token`'s input.
    func advance(_ token: Int) {
        let line: String? = state.withLock { state in
            guard var entry = state.entries[token] else { return nil }
            entry.frames += 1
            let now = ContinuousClock.now
            defer { state.entries[token] = entry }
            if terminal {
                guard Self.seconds(now - state.lastDraw) >= Self.terminalInterval else { return nil }
                state.lastDraw = now
                return terminalLine(state)
            }
            guard Self.seconds(now - entry.lastLog) >= Self.logInterval else { return nil }
            entry.lastLog = now
            return entry.text(final: false) + "\n"
        }
        if let line { write(line) }
    }

    /// The input of `token` is done (or stopped): a final line for it.
    func finish(_ token: Int) {
        let line: String? = state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: token) else { return nil }
            state.finished += 1
            if terminal {
                let rest = state.entries.isEmpty ? "" : terminalLine(state)
                return "\r\u{1B}[K" + entry.text(final: true) + "\n" + rest
            }
            return entry.text(final: true) + "\n"
        }
        if let line { write(line) }
    }

    /// Stops showing `token`'s input without a final line (it never started).
    func drop(_ token: Int) { _ = state.withLock { $0.entries.removeValue(forKey: token) } }

    /// The redrawn terminal line: the count of finished inputs, then each running input's progress.
    private func terminalLine(_ state: State) -> String {
        let running = state.entries.keys.sorted().compactMap { state.entries[$0]?.text(final: false) }
        let prefix = total > 1 ? "[\(state.finished)/\(total)] " : ""
        return "\r\u{1B}[K" + prefix + running.joined(separator: " | ")
    }

    private func write(_ text: String) { Console.error(text) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
