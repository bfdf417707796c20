/// Where a run that ended early (killed, interrupted) left off, so a new `Detector` continues after it
/// instead of starting over (`DetectorOptions.resume`).
///
/// Frames up to `afterFrame` (source indices) are read but not analysed or reported. Tracking starts
/// afresh, so a face visible across the break gets a new ID: IDs continue from `nextFaceId`, and the
/// faces still open at the break (`openFaces`) are reported lost on the first reported frame, so every
/// `found` has its `lost` and each frame is reported exactly once over the two runs.
public struct ResumePoint: Sendable, Equatable {
    /// The last frame index the earlier run finished.
    public var afterFrame: Int
    /// The first face ID the resumed run hands out.
    public var nextFaceId: Int
    /// Faces found and not lost by the break, in ID order.
    public var openFaces: [Int]

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

    /// Renumbers one result of the resumed run (the detector counts IDs from 0 internally).
    func renumbered(_ result: DetectorResult, first: Bool) -> DetectorResult {
        var shifted = result
        shifted.faces = result.faces.map { faces in
            Dictionary(
                uniqueKeysWithValues: faces.map { id, face in
                    var face = face
                    face.faceId = id + nextFaceId
                    return (id + nextFaceId, face)
                })
        }
        shifted.found = result.found.map { $0 + nextFaceId }
        shifted.returned = result.returned?.map { $0 + nextFaceId }
        shifted.lost = (first ? openFaces : []) + result.lost.map { $0 + nextFaceId }
        return shifted
    }
}
