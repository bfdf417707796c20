import Foundation
import Mien
import MienCore
import MienStudies

/// Counts what a stimulus socket measured, for the participant's session and the dashboard's live progress:
/// frames received and analysed, and the stimulus time measured (`MeasuredTime`).
///
/// It is one of the detector's writers, so it also hears when writing failed (`fail`): the socket is then
/// stopped and the participant told, rather than sent an error for every later frame.
final class StimulusCounter: ResultWriter, Sendable {
    private struct State {
        var tally: ProgressTally
        var reported = (received: 0, analysed: 0)
        /// Frames that could not be decoded, since the last report: not the machine being slow.
        var unreadable = 0
    }
    private let state: Locked<State>
    /// Where a frame that cannot be decoded is reported (the framing socket's results writer does it there).
    private let outbox: LiveOutbox?
    private let onFailure: @Sendable (MienError) -> Void

    /// - Parameters:
    ///   - duration: the stimulus's length (nil: the framing check, whose time is not measured).
    ///   - span: seconds one analysed frame measures (`CollectionSettings.Fieldwork.frameSpan`).
    ///   - onFailure: told once when writing the results failed.
    init(
        duration: Double?, span: Double, outbox: LiveOutbox?, onFailure: @escaping @Sendable (MienError) -> Void
    ) {
        state = Locked(State(tally: ProgressTally(duration: duration ?? 0, span: span)))
        self.outbox = outbox
        self.onFailure = onFailure
    }

    /// A frame the socket accepted, at `time` seconds of the stimulus.
    func received(at time: Double) {
        state.withLock { $0.tally.received(at: time) }
    }

    /// The viewer skipped the stimulus at `time` seconds.
    func skipped(at time: Double) {
        state.withLock { $0.tally.skipped(at: time) }
    }

    /// The page was asked for `rate` frames per second.
    func asked(rate: Double) {
        state.withLock { $0.tally.asked(rate: rate) }
    }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        state.withLock { $0.tally.add(result) }
    }

    /// The progress so far; `ended`: whether the page said the stimulus played to its end.
    func progress(ended: Bool = false) -> ParticipantSession.StimulusProgress {
        state.withLock { state in
            var progress = state.tally.progress
            progress.ended = ended
            return progress
        }
    }

    /// Frames received and analysed since the last call (for `AnalysisBudget.report`), less those that could not
    /// be decoded (a client sending garbage does not make the server look slow).
    func sinceLastReport() -> (received: Int, analysed: Int) {
        state.withLock { state in
            let now = (state.tally.progress.frames, state.tally.progress.analysed)
            defer {
                state.reported = now
                state.unreadable = 0
            }
            return (max(0, now.0 - state.reported.received - state.unreadable), now.1 - state.reported.analysed)
        }
    }

    func unreadable(_ error: MienError) {
        state.withLock { $0.unreadable += 1 }
        outbox?.send(LiveMessage.failure(ErrorBody(error)).text())
    }
    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) { onFailure(error) }
}
