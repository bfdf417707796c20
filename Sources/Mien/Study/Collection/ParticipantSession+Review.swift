import Foundation

/// What a stimulus's progress tells a reviewer: the page's viewing figures with the face's stillness, and why to
/// look before paying.
extension ParticipantSession.StimulusProgress {
    /// The page's viewing figures with the face's stillness; nil when the page recorded no viewing.
    package func figures(duration: Double) -> ViewingFigures? {
        guard var figures = viewing?.figures(duration: duration) else { return nil }
        figures.stillSeconds = stillSeconds
        return figures
    }

    /// Why a reviewer should look at this stimulus before paying (no natural movement: a photo?); nil when
    /// nothing.
    package func stillnessReview(duration: Double) -> String? {
        guard let stillSeconds, Stillness.flagged(stillSeconds: stillSeconds, duration: duration) else {
            return nil
        }
        let seconds = String(format: "%.1f", stillSeconds)
        let whole = String(format: "%.1f", duration)
        return
            "no natural movement (blink, head turn or expression) for \(seconds) s of \(whole) s: a photo? review before paying"
    }
}
