import Foundation
import Mien

/// The published rules a collected viewer's viewing must meet to be included (`mien study --quality`): each
/// exclusion names the rule it broke and by how much, so a reviewer can audit, loosen or drop it.
///
/// Defaults follow what the commercial tools document (Realeyes and Element Human exclude sessions whose viewer
/// looked away or left, whose camera delivered too few frames, or whose playback stalled), with thresholds stated
/// here: the page hidden for at most 10 % of a stimulus, stalls of at most 3 s in all, a camera of at least 5
/// frames per second, frame stamps off by at most 250 ms (95th percentile). Full screen and focus are recorded but
/// not judged by default: a viewer in a window still watches, and phones refuse full screen. Nor is a face with no
/// natural movement (`still=SECONDS`, off by default): a very still person exists, so the dashboard and
/// `approvals.csv` flag it for review and a study may choose the rule.
package struct ViewingRules: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Largest share (0...1) of a stimulus the page may have been hidden for.
    package var hidden: Double?
    /// Largest share (0...1) of a stimulus played out of full screen.
    package var fullscreen: Double?
    /// Largest share (0...1) of a stimulus played with the window out of focus.
    package var focus: Double?
    /// Most seconds of stalls in a stimulus.
    package var stalls: Double?
    /// Fewest frames per second the camera may deliver.
    package var cameraFps: Double?
    /// Largest 95th percentile of the stamps' spread, milliseconds.
    package var timing: Double?
    /// Most seconds of a stimulus with the face showing no natural movement (`Stillness`: a photo?); off by
    /// default, as a very still person exists (their sessions are flagged for review instead).
    package var still: Double?

    package init(
        hidden: Double? = nil, fullscreen: Double? = nil, focus: Double? = nil, stalls: Double? = nil,
        cameraFps: Double? = nil, timing: Double? = nil, still: Double? = nil
    ) {
        self.hidden = hidden
        self.fullscreen = fullscreen
        self.focus = focus
        self.stalls = stalls
        self.cameraFps = cameraFps
        self.timing = timing
        self.still = still
    }

    /// The defaults (see the type's documentation).
    package static let standard = ViewingRules(hidden: 0.1, stalls: 3, cameraFps: 5, timing: 250)

    /// No rule: every viewing is included, its figures still listed.
    package static let none = ViewingRules()

    /// The rules' names in `--quality`, in order.
    package static let names = ["hidden", "fullscreen", "focus", "stalls", "camera-fps", "timing", "still"]

    /// Reads `--quality`: `off`, or the defaults changed by `NAME=VALUE` pairs separated by commas (a value `off`
    /// drops that rule): `hidden=0.2,fullscreen=0.5,timing=off`.
    /// - Throws: `MienError` `.invalidArgument` naming the pair that is not a rule or not a number in its range.
    package init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "off" {
            self = .none
            return
        }
        var rules = Self.standard
        for pair in trimmed.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, Self.names.contains(parts[0]) else {
                throw MienError(
                    .invalidArgument,
                    "'\(pair)' is not a viewing rule: give NAME=VALUE, NAME one of \(Self.names.joined(separator: ", ")), or 'off'",
                    input: "--quality")
            }
            let value: Double?
            if parts[1] == "off" {
                value = nil
            } else {
                let share = ["hidden", "fullscreen", "focus"].contains(parts[0])
                guard let number = Double(parts[1]), number.isFinite, number >= 0, !share || number <= 1 else {
                    throw MienError(
                        .invalidArgument,
                        "\(parts[0])=\(parts[1]): give \(share ? "a share within 0...1" : "a number, 0 or more") or 'off'",
                        input: "--quality")
                }
                value = number
            }
            switch parts[0] {
            case "hidden": rules.hidden = value
            case "fullscreen": rules.fullscreen = value
            case "focus": rules.focus = value
            case "stalls": rules.stalls = value
            case "camera-fps": rules.cameraFps = value
            case "still": rules.still = value
            default: rules.timing = value
            }
        }
        self = rules
    }

    /// The rules in words, for `study.html` and the notes.
    package var description: String {
        let parts = [
            hidden.map { "the page hidden for at most \(Self.percent($0)) of a stimulus" },
            fullscreen.map { "out of full screen for at most \(Self.percent($0))" },
            focus.map { "out of focus for at most \(Self.percent($0))" },
            stalls.map { "stalls of at most \(Self.number($0)) s" },
            cameraFps.map { "a camera of at least \(Self.number($0)) frames per second" },
            timing.map { "frame stamps off by at most \(Self.number($0)) ms (95th percentile)" },
            still.map { "a face still (no blink, head turn or expression) for at most \(Self.number($0)) s" },
        ].compactMap { $0 }
        return parts.isEmpty ? "no viewing rule" : parts.joined(separator: "; ")
    }

    /// Each rule `figures` of a stimulus lasting `duration` seconds breaks, in words with by how much.
    ///
    /// "viewing rule hidden: the page was hidden 4.5 s of 30 s (15 %; at most 10 %)"; empty when it breaks none. A
    /// figure the browser could not measure (a camera's rate, the stamps' spread) breaks nothing.
    package func broken(by figures: ViewingFigures, duration: Double) -> [String] {
        func share(_ name: String, _ what: String, _ seconds: Double, _ limit: Double?) -> String? {
            guard let limit, duration > 0, seconds / duration > limit + 1e-9 else { return nil }
            return
                "viewing rule \(name): \(what) \(Self.number(seconds)) s of \(Self.number(duration)) s (\(Self.percent(seconds / duration)); at most \(Self.percent(limit)))"
        }
        var broken = [
            share("hidden", "the page was hidden", figures.hiddenSeconds, hidden),
            share("fullscreen", "out of full screen", figures.outOfFullscreenSeconds, fullscreen),
            share("focus", "the window out of focus", figures.unfocusedSeconds, focus),
        ].compactMap { $0 }
        if let stalls, figures.stallSeconds > stalls + 1e-9 {
            broken.append(
                "viewing rule stalls: the stimulus stalled \(figures.stalls) time\(figures.stalls == 1 ? "" : "s") for \(Self.number(figures.stallSeconds)) s (at most \(Self.number(stalls)) s)"
            )
        }
        if let cameraFps, let fps = figures.cameraFps, fps < cameraFps - 1e-9 {
            broken.append(
                "viewing rule camera-fps: the camera delivered \(Self.number(fps)) frames per second (at least \(Self.number(cameraFps)))"
            )
        }
        if let timing, let spread = figures.timingSpreadMs, spread > timing + 1e-9 {
            broken.append(
                "viewing rule timing: frame stamps off by up to \(Self.number(spread)) ms (95th percentile; at most \(Self.number(timing)) ms)"
            )
        }
        if let still, let seconds = figures.stillSeconds, seconds > still + 1e-9 {
            broken.append(
                "viewing rule still: no natural movement (blink, head turn or expression) for \(Self.number(seconds)) s (at most \(Self.number(still)) s)"
            )
        }
        return broken
    }

    private static func percent(_ share: Double) -> String { "\(Int(saturating: share * 100)) %" }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? Int(checked: value).map(String.init) ?? String(value) : String(format: "%.1f", value)
    }
}
