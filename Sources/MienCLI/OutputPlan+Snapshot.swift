import Foundation
import Logging
import Mien

extension OutputPlan {
    /// The snapshot file of `name`'s outputs (nil without a JSON Lines file, the checkpoint it goes with).
    func snapshotFile(for name: String, options: DetectorOptions) -> SnapshotFile? {
        guard let jsonl = files(for: name).jsonl, !name.hasPrefix(InputRunner.cameraPrefix) else { return nil }
        return SnapshotFile(
            path: SnapshotFile.path(besideJSONLines: jsonl),
            identity: .of(input: name, generator: MienVersion.string, settings: options.settings))
    }

    /// Replays `checkpoint` into `writers` and sets where the run goes on (`options.resume`): from the input's
    /// snapshot when one agrees with the program, the settings, the input and the checkpoint (the frames after
    /// it are analysed again); otherwise after the last finished frame, a video's earlier frames analysed
    /// again from the first (said, with the reason).
    func resume(
        _ name: String, from checkpoint: ResumeCheckpoint, snapshot file: SnapshotFile?, writers: [any ResultWriter],
        models: ModelStore, options: inout DetectorOptions
    ) throws {
        var snapshot: AnalysisSnapshot?
        switch file.flatMap({ SnapshotFile.load(path: $0.path, identity: $0.identityForLoading) }) {
        case .success(let loaded): snapshot = loaded
        case .failure(let refusal):
            Diagnostics.logger.warning("\(name): \(refusal); not used, analysed again from the first frame (--resume)")
        case nil: break
        }
        // The networks compile on the other core while the finished frames are replayed (each takes 1-2 s of a
        // resumed run's start on the 2-core machine).
        let compiling = DispatchGroup()
        let settings = options
        DispatchQueue.global().async(group: compiling) { Detector.prepareModels(options: settings, models: models) }
        defer { compiling.wait() }
        let replayed = try checkpoint.replay(into: writers, upTo: snapshot)
        checkpoint.removeLeftovers()
        if let snapshot, !replayed.reachedSnapshot {
            Diagnostics.logger.warning(
                "\(name): its snapshot (after frame \(snapshot.afterFrame)) does not match the finished frames; analysed again from the first frame (--resume)"
            )
        }
        guard let point = replayed.point else { return }
        if replayed.reachedSnapshot { options.restoring = snapshot.map(RestoredAnalysis.init) }
        let how =
            replayed.reachedSnapshot
            ? "from its snapshot: faces, baselines and episodes continue as in one run"
            : "a video's earlier frames are analysed again, not written again, so its faces, baselines and episodes continue as in one run"
        Diagnostics.logger.warning("\(name): resuming after frame \(point.afterFrame) (--resume; \(how))")
        options.resume = point
    }
}
