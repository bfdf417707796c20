import Foundation
import MienCore

/// The writers of one run, fed together: results in order, then one ending for all.
///
/// Each run of a `Detector` has its own (`Detector.run(writers:)`; `start()`'s first run gets the writers the
/// detector was made with). The first writer error stops the writing: every writer is told `fail`, and the
/// error becomes the input's failure.
///
/// The writers are called outside the lock, which guards only how the writing went: a writer may write a file,
/// fsync it or wait for a database (`DatabaseResultWriter.finish` waits for its uploads), and a caller asking how
/// the run ended (`end`, from a task awaiting `process(_:)`) must not wait behind that. The calls are serial
/// by the run's structure, as `ResultWriter` promises: `begin` and `abandon` before the run's threads start;
/// `write`, `keep` and `unreadable` from its one measuring thread; `finish` from that thread, or from the thread
/// that stops the run once the run's threads have ended.
///
/// The delegate and `results` (`DetectorCallbacks`) are called first, never under the lock, so a callback may call
/// anything of the detector's, `stop()` included, without a deadlock.
final class WriterGroup: Sendable {
    /// The run's writers: called only as the type's notes say (one caller at a time), never under `state`'s lock.
    private nonisolated(unsafe) let writers: [any ResultWriter]
    /// How the writing went: touched only under the lock.
    private let state = Locked(State())
    /// The detector's delegate and `results`: they serve every run, are fed before the writers, and are told
    /// nothing when `start()` fails (the caller hears the thrown error).
    private let callbacks: DetectorCallbacks

    private struct State {
        var failure: MienError?
        var ended: InputEnd?
        /// Whether the outputs still take results: neither broken nor ended.
        var writing: Bool { failure == nil && ended == nil }
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
        self.writers = writers
    }

    /// Runs `body` on the writers unless the outputs are broken or ended; its first error breaks them: every writer
    /// is told `fail`, and the error is returned (once; the caller stops the input).
    private func whileWriting(_ body: ([any ResultWriter]) throws -> Void) -> MienError? {
        guard state.withLock({ $0.writing }) else { return nil }
        do {
            try body(writers)
            return nil
        } catch {
            let error = Self.mienError(error)
            state.withLock { $0.failure = error }
            for writer in writers { writer.fail(error) }
            return error
        }
    }

    /// Writes `result` to every writer.
    /// - Returns: the write error that broke the outputs (once; the caller stops the input), else nil.
    func write(_ result: DetectorResult, frame: Frame?) -> MienError? {
        callbacks.delivering {
            callbacks.write(result)
            return whileWriting { writers in
                for writer in writers { try writer.write(result, frame: writer.wantsFrames ? frame : nil) }
            }
        }
    }

    /// Hands `snapshot` to the writers that keep one (after its frame's result was written).
    /// - Returns: the error that broke the outputs (once; the caller stops the input), else nil.
    func keep(_ snapshot: AnalysisSnapshot) -> MienError? {
        callbacks.delivering {
            whileWriting { writers in
                for case let writer as any SnapshotKeeping in writers { try writer.keep(snapshot) }
            }
        }
    }

    /// Describes the opened input to every writer.
    func begin(_ info: SourceInfo) throws {
        for writer in writers { try writer.begin(info) }
    }

    /// Removes every writer's output: the input could not even start.
    func abandon(_ error: MienError) {
        let first = state.withLock { state in
            guard state.writing else { return false }
            state.failure = error
            state.ended = .failed(error)
            return true
        }
        guard first else { return }
        for writer in writers { writer.fail(error) }
    }

    /// Tells every writer that an item of the input could not be read or analysed.
    func unreadable(_ error: MienError) {
        callbacks.delivering {
            callbacks.unreadable(error)
            guard state.withLock({ $0.writing }) else { return }
            for writer in writers { writer.unreadable(error) }
        }
    }

    /// Ends the writing once (later calls return the first ending).
    /// - Returns: how the input ended, a write or commit failure taking the place of `end`.
    @discardableResult
    func finish(_ end: InputEnd, episodes: [EpisodeEvent] = [], readToEnd: Bool = false) -> InputEnd {
        callbacks.delivering { finishing(end, episodes: episodes, readToEnd: readToEnd) }
    }

    private func finishing(_ end: InputEnd, episodes: [EpisodeEvent], readToEnd: Bool) -> InputEnd {
        // Once per run (the detector ends each run once): the episodes still open, then how it ended.
        callbacks.finish(end, episodes: episodes, readToEnd: readToEnd)
        let earlier = state.withLock { state -> InputEnd? in
            if let ended = state.ended { return ended }
            if let failure = state.failure {
                state.ended = .failed(failure)
                return .failed(failure)
            }
            return nil
        }
        if let earlier { return earlier }
        var result = end
        for writer in writers {
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
        let ended = result
        state.withLock { $0.ended = ended }
        return result
    }

    /// How the input ended, once it has (the writers are finished by then).
    var end: InputEnd? { state.withLock { $0.ended } }

    private static func mienError(_ error: any Error) -> MienError {
        error as? MienError ?? MienError(.ioFailure, "\(error)")
    }
}
