import ArgumentParser
import Foundation
import Mien

/// `MienDev features`: the raw evidence behind the expressions (52 blendshapes and the geometric
/// features) of the largest face in each image, as CSV, for studying mappings on labelled data.
struct Features: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print blendshapes and geometric features of the largest face per image as CSV.")

    @Argument(help: "Image files.")
    var images: [String]

    func run() throws {
        let models = try ModelStore()
        // FaceAnalyzer, not a Detector: this reads the raw features behind the expression mappings, which no result carries.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4), models: models)
        let blendshapes = try BlendshapeEstimator(models: models)
        let estimator = HeadPoseEstimator(model: try CanonicalFaceModel(models: models))
        let featureNames = [
            "eyeOpenL", "eyeOpenR", "browL", "browR", "innerBrowL", "innerBrowR", "browGap", "lipGap", "mouthWidth",
            "liftL", "liftR", "noseToLip", "lipThickness", "noseToChin", "lidL", "lidR", "cheekL", "cheekR", "wingL",
            "wingR", "gazeX", "gazeY", "yaw", "pitch", "roll",
        ]
        print((["file"] + Blendshapes.names + featureNames).joined(separator: ","))
        for path in images {
            guard let frame = try? ImageDecoder.decode(file: path),
                let face = try analyzer.analyze(frame).largestFace,
                let (pose, fit) = estimator.fit(points: face.mesh.points),
                let frontal = HeadPoseEstimator.frontal(points: face.mesh.points, fit: fit)
            else {
                print(path)
                continue
            }
            let scores = try blendshapes.blendshapes(points: face.mesh.points).scores
            let f = FaceFeatures(face: frontal)
            let values: [Double] = [
                f.eyeOpening.left, f.eyeOpening.right, f.browHeight.left, f.browHeight.right, f.innerBrowHeight.left,
                f.innerBrowHeight.right, f.browGap, f.lipGap, f.mouthWidth, f.cornerLift.left, f.cornerLift.right,
                f.noseToLip, f.lipThickness, f.noseToChin, f.lowerLidHeight.left, f.lowerLidHeight.right,
                f.cheekHeight.left,
                f.cheekHeight.right, f.noseWingHeight.left, f.noseWingHeight.right, f.gaze?.x ?? .nan,
                f.gaze?.y ?? .nan, pose.yaw, pose.pitch,
                pose.roll,
            ]
            print(([path] + (scores + values).map { String(format: "%.4f", $0) }).joined(separator: ","))
        }
    }
}
