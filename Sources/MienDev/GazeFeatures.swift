import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev gaze-features`: per Pointing'04 image (|pan|, |tilt| <= 60), the labels, the head pose and where
/// each iris sits in its eye, as CSV: the measurements the gaze model's constants are fitted from.
struct GazeFeatures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gaze-features", abstract: "Print head pose and iris offsets on Pointing'04 as CSV.")

    @Option(help: "pointing04, or yalefaces (labels: expressions, every picture looking at the camera).")
    var set = "pointing04"

    func run() throws {
        guard let root = SampleMedia.evaluationDirectory else { throw MienError(.notFound, "no evaluation data") }
        if set == "yalefaces" { return try yalefaces(root) }
        let models = try ModelStore()
        // FaceAnalyzer, not a Detector: this reads the iris and eye-region evidence behind the gaze, which no result carries.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 10), models: models)
        let estimator = HeadPoseEstimator(model: try CanonicalFaceModel(models: models))
        print("person,pan,tilt,yaw,pitch,roll,iod,frontalX,frontalY,openL,openR,imgLX,imgLY,imgRX,imgRY")
        for label in try LabelledPose.pointing04(root.appendingPathComponent("pointing04_headpose"))
        where abs(label.pan) <= 60 && abs(label.tilt) <= 60 {
            let analysis = try analyzer.analyze(ImageDecoder.decode(file: label.imagePath))
            guard
                let face = analysis.faces.min(by: {
                    $0.bounds.center.distance(to: label.faceCenter) < $1.bounds.center.distance(to: label.faceCenter)
                }), face.bounds.center.distance(to: label.faceCenter) < face.bounds.width,
                let (pose, fit) = estimator.fit(points: face.mesh.points),
                let frontal = HeadPoseEstimator.frontal(points: face.mesh.points, fit: fit)
            else {
                print("\(label.person),\(label.pan),\(label.tilt),,,,,,,,,,,,")
                continue
            }
            let f = FaceFeatures(face: frontal)
            // The frontalised mean offset (FaceFeatures.gaze) beside the offsets in the picture.
            let values =
                [
                    pose.yaw, pose.pitch, pose.roll, pose.interocularDistance, f.gaze?.x ?? .nan, f.gaze?.y ?? .nan,
                    f.eyeOpening.left, f.eyeOpening.right,
                ] + Self.imageOffsets(face.mesh)
            print(
                "\(label.person),\(label.pan),\(label.tilt),"
                    + values.map { String(format: "%.4f", $0) }.joined(separator: ","))
        }
    }

    /// Iris offsets in the picture (`GazeEstimator.irisOffset`), left eye then right, x then y.
    static func imageOffsets(_ mesh: FaceMesh) -> [Double] {
        [GazeEstimator.Side.left, .right].flatMap { side -> [Double] in
            guard let eye = GazeEstimator.irisOffset(side, mesh: mesh) else { return [.nan, .nan] }
            return [eye.offset.x, eye.offset.y]
        }
    }

    /// Yalefaces: everyone faces the camera; the label is the expression.
    private func yalefaces(_ root: URL) throws {
        let models = try ModelStore()
        // FaceAnalyzer, not a Detector: this reads the iris and eye-region evidence behind the gaze, which no result carries.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4), models: models)
        print("subject,label,yaw,pitch,imgLX,imgLY,imgRX,imgRY")
        for image in try LabelledExpression.yalefaces(root) {
            guard let face = try analyzer.analyze(ImageDecoder.decode(file: image.imagePath)).largestFace,
                let pose = face.pose
            else { continue }
            let values = [pose.yaw, pose.pitch] + Self.imageOffsets(face.mesh)
            print("\(image.subject),\(image.label)," + values.map { String(format: "%.4f", $0) }.joined(separator: ","))
        }
    }
}
