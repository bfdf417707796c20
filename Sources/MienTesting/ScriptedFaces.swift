import Foundation
public import Mien

/// Faces at scripted places, frame by frame, for tests of the plumbing (writers, ordering, resume,
/// cancellation) that need faces but not Mien's models.
///
/// `stages` gives a `Detector` a detector that reports the script's boxes and a mesher that "sees" a face
/// wherever the script puts one (a grid of 478 points over the box, presence 0 elsewhere), so tracking,
/// IDs and found / lost events behave as with real faces.
public struct ScriptedFaces: Sendable {
    /// The face boxes of the frame with this index, in frame pixels.
    public var boxes: @Sendable (Int) -> [Rect]
    /// Seconds each mesh takes (a slow analysis, for tests of live sources that must drop frames).
    public var meshSeconds: Double

    public init(meshSeconds: Double = 0, boxes: @escaping @Sendable (Int) -> [Rect]) {
        self.boxes = boxes
        self.meshSeconds = meshSeconds
    }

    /// One face at `box` in every frame.
    public static func one(at box: Rect = Rect(x: 100, y: 60, width: 80, height: 80), meshSeconds: Double = 0)
        -> ScriptedFaces
    {
        ScriptedFaces(meshSeconds: meshSeconds) { _ in [box] }
    }

    /// The stages for `Detector(source:options:stages:writers:)`.
    public var stages: DetectorStages {
        let boxes = self.boxes
        let seconds = meshSeconds
        return DetectorStages { _ in
            (ScriptedFaceDetector(boxes: boxes), ScriptedMesher(boxes: boxes, seconds: seconds))
        }
    }
}

/// Reports the script's boxes for the frame's index, most confident first.
private final class ScriptedFaceDetector: FaceDetecting {
    let boxes: @Sendable (Int) -> [Rect]
    init(boxes: @escaping @Sendable (Int) -> [Rect]) { self.boxes = boxes }

    func detect(in frame: Frame) throws -> [FaceDetection] {
        boxes(frame.index).map { box in
            let eyes = [
                Point(x: box.minX + box.width * 0.3, y: box.minY + box.height * 0.4),
                Point(x: box.minX + box.width * 0.7, y: box.minY + box.height * 0.4),
            ]
            return FaceDetection(bounds: box, keypoints: eyes + Array(repeating: box.center, count: 4), confidence: 0.9)
        }
    }
}

/// A grid of points over the scripted face whose centre lies in the region; presence 0 when none does.
private final class ScriptedMesher: FaceMeshEstimating {
    let boxes: @Sendable (Int) -> [Rect]
    let seconds: Double
    init(boxes: @escaping @Sendable (Int) -> [Rect], seconds: Double) {
        self.boxes = boxes
        self.seconds = seconds
    }

    func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh {
        if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
        guard let face = boxes(frame.index).first(where: { region.boundingBox.contains($0.center) }) else {
            return FaceMesh(
                points: Array(repeating: Point3D(x: 0, y: 0, z: 0), count: 478), presence: 0, region: region)
        }
        var points = (0..<478).map { i in
            Point3D(
                x: face.minX + Double(i % 22) / 21 * face.width, y: face.minY + Double(i / 22) / 21 * face.height, z: 0)
        }
        points[FaceLandmark.rightEyeOuterCorner] = Point3D(
            x: face.minX + face.width * 0.2, y: face.minY + face.height * 0.4, z: 0)
        points[FaceLandmark.leftEyeOuterCorner] = Point3D(
            x: face.minX + face.width * 0.8, y: face.minY + face.height * 0.4, z: 0)
        return FaceMesh(points: points, presence: 0.95, region: region)
    }
}
