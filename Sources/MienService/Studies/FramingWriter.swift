import Mien
import MienCore
import MienStudies

/// The framing socket's judge as a writer of its detector's run: every result is judged as it is written (on the
/// server's clock), and the page is told once the server saw the check pass (`{"type":"positioned"}`; the page
/// judges for itself, a client without one waits for it before it says `framed`).
final class FramingWriter: ResultWriter, Sendable {
    private let judge: Locked<FramingJudge>
    private let outbox: LiveOutbox
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    init(limits: CollectionSettings.Framing, outbox: LiveOutbox) {
        judge = Locked(FramingJudge(limits: limits))
        self.outbox = outbox
        start = clock.now
    }

    /// Whether the server saw the check pass.
    var passed: Bool { judge.withLock { $0.passed } }

    /// When the server saw it pass (nil: not yet).
    var passedAt: ContinuousClock.Instant? { judge.withLock { $0.passed } ? passedInstant.withLock { $0 } : nil }
    private let passedInstant = Locked<ContinuousClock.Instant?>(nil)

    /// Where the participant looked during the check (`FramingJudge.look`), once it passed.
    var look: (yaw: Double, pitch: Double)? { judge.withLock { $0.passed ? $0.look : nil } }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        let time = (clock.now - start).seconds
        if judge.withLock({ $0.judge(result, at: time) }) {
            passedInstant.withLock { $0 = clock.now }
            outbox.send(#"{"type":"positioned"}"#)
        }
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
