/// Where a run that ended early (killed, interrupted) left off, so a new `Detector` continues after it
/// instead of starting over (`DetectorOptions.resume`).
///
/// Frames up to `afterFrame` (source indices) are read but not analysed or reported. Tracking starts
/// afresh, so a face visible across the break gets a new ID: the resumed run's face-ID allocator starts
/// at `nextFaceId`, and the faces still open at the break (`openFaces`) are reported lost on the first
/// reported frame, so every `found` has its `lost` and each frame is reported exactly once over the two
/// runs.
public struct ResumePoint: Sendable, Equatable {
    /// The last frame index the earlier run finished.
    public var afterFrame: Int
    /// The first face ID the resumed run hands out.
    public var nextFaceId: Int
    /// Faces found and not lost by the break, in ID order.
    public var openFaces: [Int]
    /// The earlier run's results, slimmed to what episodes are found from (scores, flags, events).
    ///
    /// The resumed run's episode finder continues where that run's stopped: an episode finished before the break
    /// is not found again, and one open at the break ends there (`lost`, with its face). Empty: start afresh.
    public var episodeHistory: [DetectorResult] = []

    /// Equal break points: the same frame, next ID and open faces (`episodeHistory` is what led there, not
    /// where the break is).
    public static func == (left: ResumePoint, right: ResumePoint) -> Bool {
        left.afterFrame == right.afterFrame && left.nextFaceId == right.nextFaceId && left.openFaces == right.openFaces
    }

    /// A point after frame `afterFrame`, IDs continuing from `nextFaceId`, with `openFaces` still open.
    public init(afterFrame: Int, nextFaceId: Int, openFaces: [Int] = []) {
        self.afterFrame = afterFrame
        self.nextFaceId = nextFaceId
        self.openFaces = openFaces
    }

    /// The point after `results`, the frames an earlier run finished (in order); nil when there are none.
    public init?(after results: [DetectorResult]) {
        guard let last = results.last else { return nil }
        var open = Set<Int>()
        var highest = -1
        for result in results {
            open.formUnion(result.found)
            open.subtract(result.lost)
            highest = max(highest, (result.faces?.keys.max() ?? -1), result.found.max() ?? -1)
        }
        self.init(afterFrame: last.frameIndex, nextFaceId: highest + 1, openFaces: open.sorted())
        episodeHistory = results.map { result in
            var slim = result
            slim.faces = result.faces?.mapValues { face in
                var face = face
                (face.facePoints, face.keypoints, face.mesh, face.points68, face.blendshapes) = (
                    nil, nil, nil, nil, nil
                )
                return face
            }
            return slim
        }
    }
}
