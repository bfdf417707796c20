import Foundation
import Logging
import Mien

extension OutputPlan {
    /// A checkpoint's frames and, when the input's snapshot agrees with them, the snapshot to restore.
    struct Resumption {
        var checkpoint: ResumeCheckpoint
        var restoring: AnalysisSnapshot?
    }

    /// The snapshot file of `name`'s outputs (nil without a JSON Lines file, the checkpoint it goes with).
    func snapshotFile(for name: String, options: DetectorOptions) -> SnapshotFile? {
        guard let jsonl = files(for: name).jsonl, !name.hasPrefix(InputRunner.cameraPrefix) else { return nil }
        return SnapshotFile(
            path: SnapshotFile.path(besideJSONLines: jsonl),
            identity: .of(input: name, generator: MienVersion.string, settings: options.settings))
    }

    /// Where a resumed input goes on from: its snapshot when there is one that agrees with the program, the
    /// settings, the input and the checkpoint (the frames after the snapshot are analysed again); otherwise the
    /// whole checkpoint, the earlier frames analysed again from the first (said, with the reason).
    func resumption(of name: String, checkpoint: ResumeCheckpoint, file: SnapshotFile?) -> Resumption {
        guard let file, let loaded = SnapshotFile.load(path: file.path, identity: file.identityForLoading) else {
            return Resumption(checkpoint: checkpoint)
        }
        switch loaded {
        case .success(let snapshot):
            if let through = checkpoint.through(snapshot) {
                return Resumption(checkpoint: through, restoring: snapshot)
            }
            Diagnostics.logger.warning(
                "\(name): its snapshot (after frame \(snapshot.afterFrame)) does not match the finished frames; analysed again from the first frame (--resume)"
            )
        case .failure(let refusal):
            Diagnostics.logger.warning("\(name): \(refusal); not used, analysed again from the first frame (--resume)")
        }
        return Resumption(checkpoint: checkpoint)
    }
}
