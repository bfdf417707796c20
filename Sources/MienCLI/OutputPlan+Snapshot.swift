import Foundation
import Logging
import Mien
import MienCore

extension OutputPlan {
    /// The snapshot file of `name`'s outputs (nil without a JSON Lines file, the checkpoint it goes with).
    /// - Parameter settings: what the results depend on (`DetectorOptions.settings(run:)`).
    func snapshotFile(for name: String, settings: [String: String]) -> SnapshotFile? {
        guard let jsonl = files(for: name).jsonl, !name.hasPrefix(InputRunner.cameraPrefix) else { return nil }
        return SnapshotFile(
            path: SnapshotFile.path(besideJSONLines: jsonl),
            identity: .of(input: name, generator: MienVersion.string, settings: settings))
    }

    /// Replays `checkpoint` into `writers` and sets where the run goes on (`ResumeCheckpoint.resume`), while
    /// the networks compile on the other core (each takes 1-2 s of a resumed run's start on the 2-core machine).
    func resume(
        _ name: String, from checkpoint: ResumeCheckpoint, snapshot file: SnapshotFile?, writers: [any ResultWriter],
        models: ModelStore, options: DetectorOptions, settings: inout RunSettings
    ) throws {
        let compiling = DispatchGroup()
        compiling.enter()
        // Not `DispatchQueue.global()`: on Linux its threads are the cooperative pool's.
        BlockingWork.start {
            Detector.prepareModels(options: options, models: models)
            compiling.leave()
        }
        defer { compiling.wait() }
        try checkpoint.resume(into: writers, snapshot: file, settings: &settings) { message in
            Diagnostics.logger.warning("\(name): \(message) (--resume)")
        }
    }
}
