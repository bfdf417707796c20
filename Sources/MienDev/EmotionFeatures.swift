import ArgumentParser
import Foundation
import Mien

/// `MienDev emotion-features`: the raw evidence behind emotions and appearance, as CSV: fer's CNN on the
/// whole image and on Mien's face crop (at several scales), the 21 expressions (population norms),
/// gender and age, for studying the fusion on labelled data.
struct EmotionFeatures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emotion-features",
        abstract: "Print CNN emotion probabilities, expressions and appearance per image as CSV.")

    @Argument(help: "Image files.")
    var images: [String]

    func run() throws {
        let models = try ModelStore()
        // FaceAnalyzer, not a Detector: this reads the raw evidence behind the emotion mapping, which no result carries.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4),
            expressions: ExpressionOptions(), models: models)
        let cnn = try EmotionNetwork(models: models)
        let appearance = try AppearanceNetworks(models: models)
        let classes = FacialEmotionCNN.classes.map(\.rawValue)
        let scales = [0.9, 1.0, 1.1, 1.25, 1.4]
        var header = ["file", "found"] + classes.map { "whole_" + $0 }
        for scale in scales { header += classes.map { "crop\(scale)_" + $0 } }
        header += FacialExpression.allCases.map(\.rawValue) + ["smileL", "smileR", "male", "age"]
        print(header.joined(separator: ","))
        for path in images {
            guard let frame = try? ImageDecoder.decode(file: path) else { continue }
            let whole = EmotionNetwork.wholePicture(of: frame)
            var row = [path]
            let face = try analyzer.analyze(frame).largestFace
            row.append(face == nil ? "0" : "1")
            row += try cnn.probabilities(in: frame, tensorFromFrame: whole).map { String(format: "%.5f", $0) }
            for scale in scales {
                if let face, let t = EmotionCrop.transform(points: face.mesh.points, size: 64, scale: scale) {
                    row += try cnn.probabilities(in: frame, tensorFromFrame: t).map { String(format: "%.5f", $0) }
                } else {
                    row += Array(repeating: "", count: classes.count)
                }
            }
            if let face, let e = face.expressions {
                row += FacialExpression.allCases.map { String(format: "%.2f", e[$0] ?? 0) }
                row += [String(format: "%.2f", e.left[.smile] ?? 0), String(format: "%.2f", e.right[.smile] ?? 0)]
                row.append(String(format: "%.4f", try appearance.maleProbability(in: frame, points: face.mesh.points)))
                row.append(String(format: "%.2f", try appearance.age(in: frame, points: face.mesh.points)))
            } else {
                row += Array(repeating: "", count: FacialExpression.allCases.count + 4)
            }
            print(row.joined(separator: ","))
        }
    }
}

/// `MienDev glasses-features`: the glasses evidence of the largest face per image, as CSV.
struct GlassesFeatures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glasses-features", abstract: "Print the glasses evidence of the largest face per image as CSV.")

    @Argument(help: "Image files.")
    var images: [String]

    func run() throws {
        // FaceAnalyzer, not a Detector: this reads the raw evidence behind the emotion mapping, which no result carries.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4), models: ModelStore())
        print("file,found,flagged,bridge,bar,score,lens_darkness,yaw")
        for path in images {
            guard let frame = try? ImageDecoder.decode(file: path) else { continue }
            guard let face = try analyzer.analyze(frame).largestFace,
                let g = GlassesEvidence(points: face.mesh.points, in: frame)
            else {
                print("\(path),0,,,,,,")
                continue
            }
            let flagged = face.flags.isEmpty ? 0 : 1
            print("\(path),1,\(flagged),\(g.bridge),\(g.bar),\(g.score),\(g.lensDarkness),\(face.pose?.yaw ?? 0)")
        }
    }
}
