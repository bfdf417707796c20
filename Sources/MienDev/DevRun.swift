import Mien
import MienCore

/// A detector's runs for MienDev's synchronous commands: the same `Detector.Run` users' code and `mien` run.
///
/// Those commands run on the main thread, never one of the cooperative pool's, so each waits for its run through
/// `BlockingWork.awaiting`, the package's one bridge from a thread that may block to async work (as `mien`'s
/// `Blocking.run` does); the run's own work is on its threads either way.
enum DevRun {
    /// Analyses the detector's input to its end in one run writing to `writer`, and returns once `writer` is
    /// finished.
    /// - Throws: what the run's start threw, or the error it ended with.
    static func analyse(_ detector: Detector, into writer: some ResultWriter & Sendable) throws {
        try end(try start(detector, into: writer))
    }

    /// Starts a run writing to `writer` and returns it once the source is open and the models are loaded.
    /// - Throws: what `Detector.start(writers:)` throws.
    static func start(_ detector: Detector, into writer: some ResultWriter & Sendable) throws -> Detector.Run {
        try BlockingWork.awaiting { try await detector.start(writers: [writer]) }
    }

    /// Waits for `run` to end (`stopping` it first when asked), its writers finished.
    /// - Throws: the error the run ended with.
    static func end(_ run: Detector.Run, stopping: Bool = false) throws {
        let end = try BlockingWork.awaiting { stopping ? await run.stop() : await run.end() }
        if case .failed(let error) = end { throw error }
    }
}
