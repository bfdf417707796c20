import Foundation
import Mien
import MienTesting
import Testing

@Suite("Gaze on real faces")
struct GazeRealFaceTests {
    func sampleFace() throws -> TrackedFace {
        let analyzer = try FaceAnalyzer(mode: .image, models: repositoryModels())
        return try #require(try analyzer.analyze(ImageDecoder.decode(file: SampleMedia.astronautPath)).faces.first)
    }

    @Test func movingOnlyTheIrisesOfARealMesh_changesTheGaze_notTheHeadPose() throws {
        let face = try sampleFace()
        let poses = HeadPoseEstimator(model: try CanonicalFaceModel(models: repositoryModels()))
        let pose = try #require(poses.fit(points: face.mesh.points)?.pose)
        var moved = face.mesh
        // The 10 iris points, 3 px up in the picture.
        for index in 468..<478 { moved.points[index].y -= 3 }
        let movedPose = try #require(poses.fit(points: moved.points)?.pose)
        #expect(abs(movedPose.yaw - pose.yaw) < 1e-9 && abs(movedPose.pitch - pose.pitch) < 1e-9)
        let before = try #require(GazeEstimator().gaze(mesh: face.mesh, pose: pose))
        let after = try #require(GazeEstimator().gaze(mesh: moved, pose: movedPose))
        #expect(after.pitch - before.pitch > 8, "\(before.pitch) -> \(after.pitch)")
        #expect(abs(after.yaw - before.yaw) < 1)
    }

    @Test func theSample_looksOutOfHerFace_almostStraight() throws {
        let detector = Detector(
            source: .discreteImages, options: try DetectorOptions(metrics: [.gaze]), models: try repositoryModels())
        try detector.start()
        let result = try detector.process(try ImageDecoder.decode(file: SampleMedia.astronautPath))
        detector.stop()
        let gaze = try #require(result.faces?[0]?.gaze)
        #expect(gaze.left != nil && gaze.right != nil)
        // She looks into the lens: her eyes turn less than 10 degrees in her head, and sideways her gaze
        // is on the camera. (Vertically the mesh puts her head 10 degrees down and her irises 2 px below
        // where Pointing'04's people carry them, so gaze pitch reads about -17: see docs/metrics.md, Gaze.)
        #expect(abs(gaze.yaw) <= 10 && abs(gaze.eyeYaw) <= 10 && abs(gaze.eyePitch) <= 10, "\(gaze)")
        #expect(result.faces?[0]?.gender == nil, "only the metric asked for")
    }

    @Test(.needsEvaluationData) func yalefacesNeutralFaces_lookAtTheCamera() throws {
        let root = try evaluationRoot()
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4),
            models: repositoryModels())
        var onCamera = 0
        let neutral = try LabelledExpression.yalefaces(root).filter { $0.label == "neutral" }
        for image in neutral {
            let face = try #require(try analyzer.analyze(ImageDecoder.decode(file: image.imagePath)).largestFace)
            let gaze = try #require(face.gaze, "\(image.imagePath)")
            if abs(gaze.yaw) <= 10 && abs(gaze.pitch) <= 10 { onCamera += 1 }
        }
        #expect(neutral.count == 8 && onCamera >= 7, "\(onCamera) of \(neutral.count) within 10 degrees of the camera")
    }
}
