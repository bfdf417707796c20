import Foundation
import Logging
import Mien
import MienCore

/// One stimulus attempt's results on their way to the database: batches sent one at a time in order, each tried
/// again while the database does not answer, with at most `maximumBytes` waiting.
///
/// A database away for a while (a failover, a restart) does not stop a participant's stimulus: frames go on
/// being measured into the waiting batches, which are sent when it answers again. A participant is stopped and
/// told only when more than `maximumBytes` wait (minutes of frames), when the database refuses a batch (they were
/// erased meanwhile), or when the attempt's end cannot be kept within the end's deadline: then the stimulus is
/// not saved, never said to be.
final class ResultUpload: Sendable {
    enum Item: Sendable {
        case batch(number: Int, frames: Int, lines: Data)
        case end(ResultEnd)

        var bytes: Int {
            switch self {
            case .batch(_, _, let lines): lines.count
            case .end(let end): end.episodes.count + end.summary.count
            }
        }
    }

    let key: ResultKey
    /// This upload's claim on the attempt (`StudyDatabase.claimAttempt`): its writes are kept only while it holds it.
    let upload: UUID
    private let database: StudyDatabase
    private let maximumBytes: Int

    private struct State {
        var waiting: [Item] = []
        var waitingBytes = 0
        var sending = false
        /// Why the database refused a batch: nothing more is sent.
        var refused: ResultsRefused?
        /// Since when the database has not answered, and how it failed last.
        var away: (since: ContinuousClock.Instant, failure: String)?
        /// The writer failed: what waits is dropped.
        var abandoned = false
    }
    private let state = Locked(State())
    /// Signalled whenever sending stops (nothing waits, or nothing more can be sent).
    private let idle = DispatchSemaphore(value: 0)

    /// Bytes that may wait by default: at about 2.7 kB a frame of a face with every metric (1.60 MB for 594 lines
    /// in a fleet check), 32 MiB is some 20 minutes of one participant at 10 frames a second.
    static let defaultMaximumBytes = 32 << 20

    /// - Parameter upload: the claim `StudyDatabase.claimAttempt` gave for `key`.
    init(
        key: ResultKey, upload: UUID, database: StudyDatabase, maximumBytes: Int = ResultUpload.defaultMaximumBytes
    ) {
        self.key = key
        self.upload = upload
        self.database = database
        self.maximumBytes = maximumBytes
    }

    /// Queues `item` and starts sending when nothing is being sent.
    /// - Throws: `MienError` `.ioFailure` when the database refused an earlier batch, or when more than
    ///   `maximumBytes` would wait.
    func send(_ item: Item) throws {
        let start = try state.withLock { state -> Bool in
            if let refused = state.refused {
                throw MienError(.ioFailure, "the study's database refused the results: \(refused.description)")
            }
            if state.waitingBytes + item.bytes > maximumBytes {
                let bound = maximumBytes >= 1 << 20 ? "\(maximumBytes >> 20) MiB" : "\(maximumBytes) bytes"
                let away = state.away.map { away in
                    "it has not answered for \((ContinuousClock.now - away.since).components.seconds) s: \(away.failure)"
                }
                throw MienError(
                    .ioFailure, "\(bound) of results wait for the study's database (\(away ?? "it is too slow"))")
            }
            state.waiting.append(item)
            state.waitingBytes += item.bytes
            guard !state.sending else { return false }
            state.sending = true
            return true
        }
        if start { Task { await self.drain() } }
    }

    /// Queues the attempt's end and waits (on the writer's thread, never the cooperative pool) until everything is
    /// kept: at most `within`, or, while the database has kept nothing of what waits nor refused it (an outage, a
    /// failover, a backlog being sent), up to `whileAway` in all, `onWaiting` told once when the wait goes past
    /// `within`.
    ///
    /// What is saved is decided by what the database keeps, not by a timer during an outage: a database back
    /// within `whileAway` keeps the whole attempt, and the participant is not asked to watch it again.
    /// - Throws: `MienError` `.ioFailure` when it is not all kept by then (the stimulus is not saved), or the
    ///   database refused it.
    func finish(
        _ end: ResultEnd, within: Duration, whileAway: Duration = .zero, onWaiting: @Sendable () -> Void = {}
    ) throws {
        try send(.end(end))
        let start = DispatchTime.now()
        var deadline = start + Self.dispatch(within)
        var extended = false
        while true {
            let (done, refused, away) = state.withLock { state in
                (state.waiting.isEmpty && !state.sending, state.refused, state.away?.failure)
            }
            if let refused {
                throw MienError(.ioFailure, "the study's database refused the results: \(refused.description)")
            }
            if done { return }
            if idle.wait(timeout: deadline) == .timedOut {
                let stillAway = state.withLock { $0.refused == nil && !$0.abandoned }
                if !extended, stillAway, whileAway > within {
                    extended = true
                    deadline = start + Self.dispatch(whileAway)
                    onWaiting()
                    continue
                }
                let limit = extended ? whileAway : within
                throw MienError(
                    .ioFailure,
                    "the study's database did not keep the results within \(limit)\(away.map { " (\($0))" } ?? "")")
            }
        }
    }

    private static func dispatch(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .milliseconds(Int(clamping: seconds) * 1000 + Int(clamping: attoseconds / 1_000_000_000_000_000))
    }

    /// Whether the database has not answered since the last batch it kept (the first of what waits failed).
    var isAway: Bool { state.withLock { $0.away != nil } }

    /// Why the database refused this attempt's results, once it did (erased, superseded by a later viewing).
    var refusal: ResultsRefused.Reason? { state.withLock { $0.refused?.reason } }

    /// The writer failed: what waits is not sent (what was sent stays, as a failed attempt's files do).
    func abandon() {
        state.withLock { state in
            state.abandoned = true
            state.waiting = []
            state.waitingBytes = 0
        }
    }

    private func drain() async {
        var delay = Duration.milliseconds(250)
        while true {
            let next = state.withLock { state -> Item? in
                guard !state.abandoned, state.refused == nil, let first = state.waiting.first else {
                    state.sending = false
                    return nil
                }
                return first
            }
            guard let next else {
                idle.signal()
                return
            }
            do {
                switch next {
                case .batch(let number, let frames, let lines):
                    try await database.insertBatch(key, upload: upload, number: number, frames: frames, lines: lines)
                case .end(let end):
                    try await database.insertEnd(key, upload: upload, end)
                }
                let wasAway = state.withLock { state in
                    if !state.waiting.isEmpty {
                        state.waiting.removeFirst()
                        state.waitingBytes -= next.bytes
                    }
                    defer { state.away = nil }
                    return state.away != nil
                }
                if wasAway { database.logger.info("\(key): the database answers again; waiting results are sent") }
                delay = .milliseconds(250)
            } catch let refused as ResultsRefused {
                database.logger.error("\(key): the database refused results: \(refused)")
                state.withLock { state in
                    state.refused = refused
                    state.waiting = []
                    state.waitingBytes = 0
                    state.sending = false
                }
                idle.signal()
                return
            } catch {
                let first = state.withLock { state -> Bool in
                    defer { state.away = (state.away?.since ?? .now, "\(error)") }
                    return state.away == nil
                }
                if first {
                    database.logger.warning("\(key): results wait for the database (\(error)); sending again")
                }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    state.withLock { $0.sending = false }  // cancelled: the next send starts again
                    idle.signal()
                    return
                }
                delay = min(delay * 2, .seconds(4))
            }
        }
    }
}
