import Foundation
import Mien
import MienTesting
import Testing

/// `lookingAtCamera`: its geometry, and its agreement with where people in labelled pictures looked.
@Suite("Looking at the camera", .timeLimit(.minutes(10)))
struct LookingAtCameraTests {
    let size = FrameSize(width: 640, height: 480)

    func gaze(yaw: Double, pitch: Double) -> Gaze {
        Gaze(yaw: yaw, pitch: pitch, eyeYaw: 0, eyePitch: 0, left: nil, right: nil)
    }

    @Test func aGazeAlongTheAxis_meetsTheCamera_onlyFromTheFramesCentre() throws {
        let centre = Point(x: 320, y: 240)
        #expect(try #require(LookingAtCamera.angle(gaze: gaze(yaw: 0, pitch: 0), eyes: centre, in: size)) < 1e-9)
        // At the right edge, the camera is atan(320 / 640) = 26.6° to the image's left: the person's right.
        let edge = Point(x: 640, y: 240)
        let straight = try #require(LookingAtCamera.angle(gaze: gaze(yaw: 0, pitch: 0), eyes: edge, in: size))
        #expect(abs(straight - 26.565) < 0.01)
        let turned = try #require(LookingAtCamera.angle(gaze: gaze(yaw: -26.565, pitch: 0), eyes: edge, in: size))
        #expect(turned < 0.01)
        // Below the centre the camera is above: looking up meets it.
        let low = Point(x: 320, y: 480)
        #expect(try #require(LookingAtCamera.angle(gaze: gaze(yaw: 0, pitch: 20.556), eyes: low, in: size)) < 0.01)
    }

    @Test func theSample_looksIntoTheCamera_andTheMetricFollowsTheGazeSwitch() throws {
        let models = try repositoryModels()
        let on = try PictureReader(groups: [.gaze], features: false, models: models)
        let face = try #require(try on.largestFace(SampleMedia.astronautPath))
        #expect(try #require(face.measures["lookingAtCamera"]) > 90)
        let off = try PictureReader(groups: [.expressions], features: false, models: models)
        #expect(try #require(try off.largestFace(SampleMedia.astronautPath)).measures["lookingAtCamera"] == nil)
    }

    /// Pointing'04's camera target against targets 30° or more away (one person's, and every person's
    /// camera pictures), and yalefaces' subjects, who all look into the camera.
    @Test(.needsEvaluationData) func labelledPictures_agreeWithWherePeopleLooked() throws {
        let root = try evaluationRoot()
        let reader = try PictureReader(groups: [.gaze], features: false, models: try repositoryModels())
        let labels = try LabelledPose.pointing04(root.appendingPathComponent("pointing04_headpose"))
        var atCamera: [Double] = []
        var away: [Double] = []
        for label in labels {
            let angle = max(abs(label.pan), abs(label.tilt))
            guard angle == 0 || (angle >= 30 && label.person == 1) else { continue }
            let score = try reader.largestFace(label.imagePath)?.measures["lookingAtCamera"] ?? 0
            if angle == 0 { atCamera.append(score) } else { away.append(score) }
        }
        #expect(atCamera.count == 16 && away.count > 100)
        let hits = Double(atCamera.filter { $0 >= 50 }.count) / Double(atCamera.count)
        let falseAlarms = Double(away.filter { $0 >= 50 }.count) / Double(away.count)
        #expect(hits >= 0.7, "at the camera: \(atCamera)")
        #expect(falseAlarms <= 0.02, "\(falseAlarms) of those looking away")
        var yale: [Double] = []
        for image in try LabelledExpression.yalefaces(root) where !["sleepy", "wink"].contains(image.label) {
            yale.append(try reader.largestFace(image.imagePath)?.measures["lookingAtCamera"] ?? 0)
        }
        #expect(Double(yale.filter { $0 >= 50 }.count) / Double(yale.count) >= 0.8, "\(yale)")
    }
}
