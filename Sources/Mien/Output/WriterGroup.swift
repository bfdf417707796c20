import Foundation
import MienCore

/// The writers of one run, fed together: results in order, then one ending for all.
///
/// Each run of a `Detector` has its own (`Detector.run(writers:)`; `start()`'s first run gets the writers the
/// detector was made with). The first writer error stops the writing: every writer is told `fail`, and the
/// error becomes the input's failure. Results come from the run's one measuring thread, in order; the lock
/// orders them against `finish` from the thread that stops the run.
///
/// The delegate and `results` (`DetectorCallbacks`) are called before the lock is taken, never under it, so a
/// callback may call anything of the detector's, `stop()` included, without a deadlock.
final class WriterGroup: Sendable {
    /// The run's writers and how their writing went: touched only under the lock.
    private let state: Locked<State>
    /// The detector's delegate and `results`: they serve every run, are fed before the writers, and are told
    /// nothing when `start()` fails (the caller hears the thrown error).
    private let callbacks: DetectorCallbacks

    private struct State {
        let writers: [any ResultWriter]
        var failure: MienError?
        var ended: InputEnd?

        /// Runs `body` unless the outputs are broken or ended; its first error breaks them: every writer is
        /// told `fail`, and the error is returned (once; the caller stops the input).
        mutating func whileWriting(_ body: () throws -> Void) -> MienError? {
            guard failure == nil, ended == nil else { return nil }
            do {
                try body()
                return nil
            } catch {
                let error = WriterGroup.mienError(error)
                failure = error
                for writer in writers { writer.fail(error) }
                return error
            }
        }
    }

    /// Whether the caller gave no writer (the detector's own outputs are all there is).
    let isEmpty: Bool

    /// Whether any writer wants the frames' pixels.
    let wantsFrames: Bool

    /// - Parameters:
    ///   - callbacks: the detector's delegate and `results` (`DetectorCallbacks`), fed first.
    ///   - writers: the caller's writers.
    init(callbacks: DetectorCallbacks, _ writers: sending [any ResultWriter]) {
        isEmpty = writers.isEmpty
        wantsFrames = writers.contains { $0.wantsFrames }
        self.callbacks = callbacks
        state = Locked(State(writers: writers))
    }

    /// Writes `result` to every writer.
    /// - Returns: the write error that broke the outputs (once; the caller stops the input), else nil.
    func write(_ result: DetectorResult, frame: Frame?) -> MienError? {
        callbacks.write(result)
        return state.withLock { state in
            let writers = state.writers
            return state.whileWriting {
                for writer in writers { try writer.write(result, frame: writer.wantsFrames ? frame : nil) }
            }
        }
    }

    /// Hands `snapshot` to the writers that keep one (after its frame's result was written).
    /// - Returns: the error that broke the outputs (once; the caller stops the input), else nil.
    func keep(_ snapshot: AnalysisSnapshot) -> MienError? {
        state.withLock { state in
            let writers = state.writers
            return state.whileWriting {
                for case let writer as any SnapshotKeeping in writers { try writer.keep(snapshot) }
            }
        }
    }

    /// Describes the opened input to every writer.
    func begin(_ info: SourceInfo) throws {
        try state.withLock { state in
            for writer in state.writers { try writer.begin(info) }
        }
    }

    /// Removes every writer's output: the input could not even start.
    func abandon(_ error: MienError) {
        state.withLock { state in
            guard state.failure == nil, state.ended == nil else { return }
            state.failure = error
            state.ended = .failed(error)
            for writer in state.writers { writer.fail(error) }
        }
    }

    /// Tells every writer that an item of the input could not be read or analysed.
    func unreadable(_ error: MienError) {
        callbacks.unreadable(error)
        state.withLock { state in
            guard state.failure == nil, state.ended == nil else { return }
            for writer in state.writers { writer.unreadable(error) }
        }
    }

    /// Ends the writing once (later calls return the first ending).
    /// - Returns: how the input ended, a write or commit failure taking the place of `end`.
    @discardableResult
    func finish(_ end: InputEnd, episodes: [EpisodeEvent] = [], readToEnd: Bool = false) -> InputEnd {
        // Once per run (the detector ends each run once): the episodes still open, then how it ended.
        callbacks.finish(end, episodes: episodes, readToEnd: readToEnd)
        return state.withLock { state in
            if let ended = state.ended { return ended }
            if let failure = state.failure {
                state.ended = .failed(failure)
                return .failed(failure)
            }
            var result = end
            for writer in state.writers {
                do {
                    if !episodes.isEmpty { try writer.finishEpisodes(episodes) }
                } catch {
                    if result.error == nil { result = .failed(Self.mienError(error)) }
                }
                do {
                    try writer.finish(end)
                } catch {
                    if result.error == nil { result = .failed(Self.mienError(error)) }
                }
            }
            state.ended = result
            return result
        }
    }

    /// How the input ended, once it has.
    var end: InputEnd? { state.withLock { $0.ended } }

    private static func mienError(_ error: any Error) -> MienError {
        error as? MienError ?? MienError(.ioFailure, "\(error)")
    }
}
