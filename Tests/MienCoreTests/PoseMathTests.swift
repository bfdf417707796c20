import MienCore
import RealModule
import Testing

@Suite("Weighted Procrustes and head-pose angles")
struct PoseMathTests {
    /// Rotation about the y axis (yaw), then x (pitch), then z (roll), degrees.
    private func rotation(yaw: Double, pitch: Double, roll: Double) -> WeightedProcrustes.Matrix3 {
        func rad(_ d: Double) -> Double { d * .pi / 180 }
        let (cy, sy) = (Double.cos(rad(yaw)), Double.sin(rad(yaw)))
        let (cp, sp) = (Double.cos(rad(pitch)), Double.sin(rad(pitch)))
        let (cr, sr) = (Double.cos(rad(roll)), Double.sin(rad(roll)))
        let ry: [[Double]] = [[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]
        // Positive pitch tips the nose (+z) up (+y).
        let rx: [[Double]] = [[1, 0, 0], [0, cp, sp], [0, -sp, cp]]
        // Positive roll turns the face clockwise as seen by the camera.
        let rz: [[Double]] = [[cr, sr, 0], [-sr, cr, 0], [0, 0, 1]]
        func mul(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
        }
        return mul(rz, mul(ry, rx))
    }

    private let cloud: [Point3D] = (0..<40).map { i in
        let t = Double(i)
        return Point3D(x: Double.sin(t * 1.3) * 5, y: Double.cos(t * 0.7) * 6, z: Double.sin(t * 2.1) * 3)
    }

    @Test func fit_recoversScaleRotationAndTranslation() throws {
        let r = rotation(yaw: 25, pitch: -10, roll: 5)
        let target = cloud.map { 2.5 * WeightedProcrustes.apply(r, $0) + Point3D(x: 100, y: -50, z: 7) }
        let fit = try #require(
            WeightedProcrustes.fit(source: cloud, target: target, weights: Array(repeating: 1, count: cloud.count)))
        #expect(abs(fit.scale - 2.5) < 1e-9)
        for i in 0..<3 { for j in 0..<3 { #expect(abs(fit.rotation[i][j] - r[i][j]) < 1e-9) } }
        #expect(abs(fit.translation.x - 100) < 1e-7 && abs(fit.translation.y + 50) < 1e-7)
    }

    @Test func fit_ofDegenerateInput_isNil() {
        #expect(WeightedProcrustes.fit(source: [], target: [], weights: []) == nil)
        #expect(
            WeightedProcrustes.fit(source: cloud, target: cloud, weights: Array(repeating: 0, count: cloud.count))
                == nil)
    }

    @Test(arguments: [(20.0, 0.0, 0.0), (-35.0, 0.0, 0.0), (0.0, 15.0, 0.0), (0.0, -25.0, 0.0), (0.0, 0.0, 12.0)])
    func angles_haveTheDocumentedSigns(yaw: Double, pitch: Double, roll: Double) {
        let pose = HeadPose(rotation: rotation(yaw: yaw, pitch: pitch, roll: roll), interocularDistance: 60)
        #expect(abs(pose.yaw - yaw) < 1e-6 && abs(pose.pitch - pitch) < 1e-6 && abs(pose.roll - roll) < 1e-6)
    }
}

@Suite("Face regions")
struct FaceRegionTests {
    @Test func crop_mapsTheCentreToTheMiddle_andLevelsTheEyes() {
        let detection = FaceDetection(
            bounds: Rect(x: 100, y: 100, width: 80, height: 80),
            keypoints: [Point(x: 120, y: 120), Point(x: 160, y: 140), .zero, .zero, .zero, .zero], confidence: 0.9)
        let region = FaceRegion(detection: detection)
        #expect(abs(region.size - 120) < 1e-9)
        let crop = region.cropFromFrame(side: 256)
        let middle = crop.apply(Point(x: 140, y: 140))
        #expect(abs(middle.x - 128) < 1e-9 && abs(middle.y - 128) < 1e-9)
        let right = crop.apply(detection[.rightEye])
        let left = crop.apply(detection[.leftEye])
        #expect(abs(right.y - left.y) < 1e-9 && left.x > right.x)
    }
}
