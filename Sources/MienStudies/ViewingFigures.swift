import Foundation
import Mien

/// A collected viewer's viewing figures for one stimulus (issue 79), as `manifest.csv` carries them from the
/// sessions to `participants.csv`: how long the page was hidden, out of full screen and out of focus while the
/// stimulus played, its stalls, the camera's frame rate and the spread of the frames' stamps.
///
/// Nil on a row means the page recorded nothing ("viewing not recorded": an older page, a client with no page,
/// or a manifest of recordings).
public struct ViewingFigures: Sendable, Codable, Equatable {
    /// Seconds of the stimulus played while the page was hidden.
    public var hiddenSeconds: Double
    /// Seconds of the stimulus played out of full screen.
    public var outOfFullscreenSeconds: Double
    /// Seconds of the stimulus played while the window was out of focus.
    public var unfocusedSeconds: Double
    public var stalls: Int
    /// Seconds the stimulus stood still waiting for data.
    public var stallSeconds: Double
    /// Seeks and playback-rate changes.
    public var seeks: Int
    /// The camera's delivered frames per second; nil when the browser did not say.
    public var cameraFps: Double?
    /// The 95th percentile of the stamps' spread (camera capture to the stimulus frame on screen), milliseconds;
    /// nil when the browser could not measure it.
    public var timingSpreadMs: Double?
    /// When the viewer pressed Skip, seconds of the stimulus (a skippable study's); nil when they did not.
    public var skippedAt: Double?
    /// Where the stimulus stalled: each stall from its stimulus time to that time plus its length (seconds of the
    /// wall clock it waited), for `study.html`'s time line.
    public var stallSpans: [ClosedRange<Double>] = []
    /// The longest stretch without natural movement of the face, seconds of stimulus time; nil when not measured.
    ///
    /// No blink, head turn or change of expression (`Stillness`), measured by the server from the frames, not by
    /// the page.
    public var stillSeconds: Double?

    public init(
        hiddenSeconds: Double, outOfFullscreenSeconds: Double, unfocusedSeconds: Double, stalls: Int,
        stallSeconds: Double, seeks: Int, cameraFps: Double?, timingSpreadMs: Double?, skippedAt: Double? = nil
    ) {
        self.hiddenSeconds = hiddenSeconds
        self.outOfFullscreenSeconds = outOfFullscreenSeconds
        self.unfocusedSeconds = unfocusedSeconds
        self.stalls = stalls
        self.stallSeconds = stallSeconds
        self.seeks = seeks
        self.cameraFps = cameraFps
        self.timingSpreadMs = timingSpreadMs
        self.skippedAt = skippedAt
    }

    /// Several stimuli's figures as one (a participant's on the dashboard): seconds, stalls and seeks added, the
    /// lowest camera rate and the largest spread; nil when none was recorded.
    public static func combined(_ all: [ViewingFigures]) -> ViewingFigures? {
        guard let first = all.first else { return nil }
        return all.dropFirst().reduce(first) { sum, next in
            ViewingFigures(
                hiddenSeconds: sum.hiddenSeconds + next.hiddenSeconds,
                outOfFullscreenSeconds: sum.outOfFullscreenSeconds + next.outOfFullscreenSeconds,
                unfocusedSeconds: sum.unfocusedSeconds + next.unfocusedSeconds, stalls: sum.stalls + next.stalls,
                stallSeconds: sum.stallSeconds + next.stallSeconds, seeks: sum.seeks + next.seeks,
                cameraFps: [sum.cameraFps, next.cameraFps].compactMap { $0 }.min(),
                timingSpreadMs: [sum.timingSpreadMs, next.timingSpreadMs].compactMap { $0 }.max(),
                skippedAt: sum.skippedAt ?? next.skippedAt
            ).withStillness([sum.stillSeconds, next.stillSeconds].compactMap { $0 }.max())
        }
    }

    /// The columns, in `manifest.csv` and `participants.csv` alike (empty cells: not recorded).
    public static let columns = [
        "hiddenSeconds", "outOfFullscreenSeconds", "unfocusedSeconds", "stalls", "stallSeconds", "seeks", "cameraFps",
        "timingSpreadMs", "skippedAt", "stallsAt", "stillSeconds",
    ]

    private func withStillness(_ seconds: Double?) -> ViewingFigures {
        var figures = self
        figures.stillSeconds = seconds
        return figures
    }

    /// The cells under `columns`, seconds and milliseconds to 3 decimals.
    public var cells: [String] {
        func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "" }
        return [
            number(hiddenSeconds), number(outOfFullscreenSeconds), number(unfocusedSeconds), String(stalls),
            number(stallSeconds), String(seeks), number(cameraFps), number(timingSpreadMs), number(skippedAt),
            stallSpans.map { number($0.lowerBound) + "+" + number($0.upperBound - $0.lowerBound) }.joined(
                separator: ";"),
            number(stillSeconds),
        ]
    }

    /// Read back from a row's cells by column name (as written, or lowercased as `StudyManifest` keys them); nil
    /// when the row has none (not recorded) or one is not a number.
    public init?(cells: [String: String]) {
        func number(_ name: String) -> Double? {
            (cells[name] ?? cells[name.lowercased()]).flatMap { Double($0) }.flatMap {
                $0.isFinite && $0 >= 0 ? $0 : nil
            }
        }
        guard let hidden = number("hiddenSeconds"), let outOfFullscreen = number("outOfFullscreenSeconds"),
            let unfocused = number("unfocusedSeconds"), let stalls = number("stalls"),
            let stallSeconds = number("stallSeconds"), let seeks = number("seeks")
        else { return nil }
        self.init(
            hiddenSeconds: hidden, outOfFullscreenSeconds: outOfFullscreen, unfocusedSeconds: unfocused,
            stalls: Int(saturating: stalls), stallSeconds: stallSeconds, seeks: Int(saturating: seeks),
            cameraFps: number("cameraFps"),
            timingSpreadMs: number("timingSpreadMs"), skippedAt: number("skippedAt"))
        // "2.100+0.400;5.000+1.200": each stall's time and length; one that does not read is left out.
        let spans = (cells["stallsAt"] ?? cells["stallsat"] ?? "").split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "+").compactMap { Double($0) }
            return parts.count == 2 && parts.allSatisfy({ $0.isFinite && $0 >= 0 })
                ? parts[0]...(parts[0] + parts[1]) : nil
        }
        stallSpans = spans
        stillSeconds = number("stillSeconds")
    }
}
