import Foundation
import Mien

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

/// Every viewing of a stimulus is an exposure (issue 95 item 2): the attempts set aside and the one kept.
extension ParticipantSession {
    /// How many times the participant was shown `stimulus`: the attempts set aside and the current one (0: never).
    package func exposures(of stimulus: String) -> Int {
        attempts.filter { $0.stimulus == stimulus }.count + ((stimuli[stimulus]?.frames ?? 0) > 0 ? 1 : 0)
    }

    /// The viewing figures of `stimulus` over all its exposures.
    ///
    /// Seconds hidden, out of full screen and out of focus, stalls and seeks added; the lowest camera rate, the largest stamp spread and stillness; the skip and
    /// the stalls' places of the exposure kept (the current one, whose frames the study reads). Nil when no exposure
    /// recorded a viewing. The viewing rules judge this, so a tab hidden in an exposure set aside is still seen.
    package func exposureFigures(of stimulus: String, duration: Double) -> ViewingFigures? {
        let kept = stimuli[stimulus]?.figures(duration: duration)
        // An attempt set aside played until its last frame: a span still open then (the page hidden as it closed
        // or reloaded) ends there, not at the stimulus's end (study-check's p4 and p6 were "hidden" 1.5 s and 2.6 s
        // of a 3-s stimulus that had stopped playing).
        let earlier = attempts.filter { $0.stimulus == stimulus }.compactMap { attempt in
            attempt.progress.figures(duration: min(duration, attempt.progress.lastTime ?? duration))
        }
        guard var all = ViewingFigures.combined(earlier + [kept].compactMap { $0 }) else { return nil }
        all.skippedAt = kept?.skippedAt
        all.stallSpans = kept?.stallSpans ?? []
        return all
    }
}
