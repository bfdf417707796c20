/// Where a run that ended early (killed, interrupted) left off, so a new `Detector` continues after it
/// (`DetectorOptions.resume`), each frame reported exactly once over the two runs.
///
/// A stream (a video, continuous pictures) is analysed again from its first frame and reported from
/// `afterFrame + 1` on: tracking, each face's baseline, the filters and the episodes reach the break in
/// the state an uninterrupted run had there, so the resumed run's outputs equal an uninterrupted run's
/// (the same faces and IDs, the same scores), at the cost of analysing the frames before the break
/// again. Pictures that stand alone are read from the break on: the resumed run's face-ID allocator
/// starts at `nextFaceId`, and the faces still open at the break (`openFaces`) are reported lost on the
/// first reported frame.
public struct ResumePoint: Sendable, Equatable {
    /// The last frame index the earlier run finished.
    public var afterFrame: Int
    /// The first face ID the resumed run hands out.
    public var nextFaceId: Int
    /// Faces found and not lost by the break, in ID order.
    public var openFaces: [Int]

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
    }
}
