import MienCore
import Testing

/// The gaze model on a synthetic mesh: two open eyes 30 px wide, irises where an eye looking ahead has
/// them, moved by hand.
@Suite("Gaze")
struct GazeTests {
    /// A mesh with only the eye points set (frame pixels); `irisShift` moves both iris centres.
    func mesh(irisShift: Point = Point(x: 0, y: 0), lidGap: Double = 10) -> FaceMesh {
        var p = [Point3D](repeating: Point3D(x: 0, y: 0, z: 0), count: 478)
        func set(_ i: Int, _ x: Double, _ y: Double) { p[i] = Point3D(x: x, y: y, z: 0) }
        // Right eye (image left) 100...130, left eye 170...200, corners at y = 100.
        set(33, 100, 100)
        set(133, 130, 100)
        set(362, 170, 100)
        set(263, 200, 100)
        for (upper, lower, x) in [(160, 144, 110.0), (158, 153, 120), (385, 380, 180), (387, 373, 190)] {
            set(upper, x, 100 - lidGap / 2)
            set(lower, x, 100 + lidGap / 2)
        }
        // Looking ahead the iris sits 0.17 half eye widths (2.55 px) above the corner line.
        let resting = GazeEstimator.Model.pointing04.restingOffset * 15
        set(FaceLandmark.rightIrisCenter, 115 + irisShift.x, 100 - resting + irisShift.y)
        set(FaceLandmark.leftIrisCenter, 185 + irisShift.x, 100 - resting + irisShift.y)
        return FaceMesh(
            points: p, presence: 1, region: FaceRegion(center: Point(x: 150, y: 100), size: 200, rotation: 0))
    }

    let ahead = HeadPose(yaw: 0, pitch: 0, roll: 0, interocularDistance: 100)

    @Test func eyesLookingAhead_lookAtTheCamera() throws {
        let gaze = try #require(GazeEstimator().gaze(mesh: mesh(), pose: ahead))
        #expect(abs(gaze.yaw) < 1e-9 && abs(gaze.pitch) < 1e-9)
        #expect(gaze.left != nil && gaze.right != nil)
        #expect(gaze.left?.origin == Point(x: 185, y: 100 - 2.55))
    }

    @Test func movingOnlyTheIrises_turnsTheGaze_theWayTheyMove() throws {
        let estimator = GazeEstimator()
        // 3 px up (y decreases in the picture): 0.2 half eye widths, asin(0.2 / 0.63) = 18.5 degrees up.
        let up = try #require(estimator.gaze(mesh: mesh(irisShift: Point(x: 0, y: -3)), pose: ahead))
        #expect(abs(up.pitch - 18.51) < 0.05 && abs(up.yaw) < 1e-9 && up.eyePitch == up.pitch)
        // Toward the image's right is toward the person's left: yaw > 0.
        let left = try #require(estimator.gaze(mesh: mesh(irisShift: Point(x: 3, y: 0)), pose: ahead))
        #expect(left.yaw > 3 && abs(left.pitch) < 1e-9)
        // The head's own rotation adds to the eyes'.
        let turned = HeadPose(yaw: 20, pitch: -10, roll: 0, interocularDistance: 100)
        let both = try #require(estimator.gaze(mesh: mesh(irisShift: Point(x: 0, y: -3)), pose: turned))
        #expect(
            abs(both.yaw - 20) < 1e-9 && abs(both.pitch - (-10 + 18.51)) < 0.05 && abs(both.eyePitch - 18.51) < 0.05)
    }

    @Test func closedEyes_aFarEye_aTurnedAwayOrTinyFace_areNotMeasured() {
        let estimator = GazeEstimator()
        #expect(estimator.gaze(mesh: mesh(lidGap: 1), pose: ahead) == nil, "both eyes closed")
        let turnedLeft = HeadPose(yaw: 50, pitch: 0, roll: 0, interocularDistance: 100)
        let oneEye = estimator.gaze(mesh: mesh(), pose: turnedLeft)
        #expect(oneEye?.right == nil && oneEye?.left != nil, "turned to their left, the right eye is the far one")
        #expect(
            estimator.gaze(mesh: mesh(), pose: HeadPose(yaw: 70, pitch: 0, roll: 0, interocularDistance: 100)) == nil)
        #expect(estimator.gaze(mesh: mesh(), pose: HeadPose(yaw: 0, pitch: 0, roll: 0, interocularDistance: 20)) == nil)
    }

    @Test func attention_followsTheGaze_notTheHeadAlone() throws {
        let gaze = try #require(GazeEstimator().gaze(mesh: mesh(irisShift: Point(x: 0, y: -3)), pose: ahead))
        #expect(ExpressionMapper.attention(pose: ahead, gaze: nil) == 100, "head alone: straight at the camera")
        #expect(ExpressionMapper.attention(pose: ahead, gaze: gaze) < 90, "the eyes look 18 degrees up")
    }
}
