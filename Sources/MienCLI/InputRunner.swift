import Foundation
import Mien

/// Runs one input of the command line: a `Detector` for it, fed to the given writers, stopped by
/// Ctrl-C; the error, if any, reported on standard error.
///
/// The whole of the tool's analysis is here, and it is one call: the detector reads, analyses and writes.
struct InputRunner: Sendable {
    var options: DetectorOptions
    /// How each input's run goes (`--max-frames`); a resumed input's adds its resume point.
    var settings: RunSettings = .standard
    var models: ModelStore
    /// Seconds between the pictures of a `--continuous` folder; nil for unrelated pictures.
    var imageInterval: Double?
    var interruption: Interruption

    /// The detector's source for a command-line input: `camera:<device>` or a path.
    static func source(for name: String, imageInterval: Double?) -> DetectorSource {
        if name.hasPrefix(Self.cameraPrefix) { return .camera(device: String(name.dropFirst(Self.cameraPrefix.count))) }
        return .file(path: name, imageInterval: imageInterval)
    }

    /// How a camera is named among the inputs.
    static let cameraPrefix = "camera:"

    /// Analyses `name` into `writers` (`settings` may carry a resume point) in one `Detector.Run`, awaited
    /// (the source is opened, the models loaded and the frames analysed on the run's own threads); never throws.
    /// - Returns: how the input ended, `.failed` when it could not start.
    func run(_ name: String, writers: sending [any ResultWriter], settings: RunSettings? = nil) async -> InputEnd {
        let detector = Detector(
            source: Self.source(for: name, imageInterval: imageInterval), options: options,
            settings: settings ?? self.settings, models: models)
        let run: Detector.Run
        do {
            run = try await detector.start(writers: writers)
        } catch {
            let failure = (error as? MienError)?.naming(name) ?? MienError(.internalFailure, "\(error)", input: name)
            Diagnostics.report(failure)
            return .failed(failure)
        }
        // A signal stops the run (at once if one came while it was starting); its writers finish with the frames
        // done.
        let token = interruption.onRequest { run.cancel() }
        defer { interruption.remove(token) }
        let end = await run.end()
        if let error = end.error { Diagnostics.report(error) }
        return end
    }

    /// Whether `error` means the models are missing or altered (exit status 3).
    static func isModelProblem(_ error: MienError?) -> Bool {
        guard let error else { return false }
        return [.modelMissing, .modelAltered, .modelInvalid].contains(error.code)
    }
}
