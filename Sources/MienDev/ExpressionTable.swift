import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev expression-table`: one CSV row per labelled picture of the emotion sets (muxspace, JAFFE,
/// fer2013, yalefaces) with everything an expression is built from, for studying constructions outside
/// Swift: Mien's 21 scores, Mien's blendshapes, the frontal mesh (interocular units) and, when the peer is
/// installed, MediaPipe's own blendshapes of the same picture.
struct ExpressionTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expression-table",
        abstract: "Write expressions, blendshapes, the frontal mesh and the peer's blendshapes per labelled picture.")

    @Option(help: "The CSV file written.")
    var output: String

    @Flag(help: "Leave out the 478 frontal mesh points (1,434 columns).")
    var noMesh = false

    func run() throws {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["EVAL_DIR"] ?? "../shared/eval")
        let models = try ModelStore()
        // FaceAnalyzer, not a Detector: this reads each face's raw expression evidence beside the scores, which no result carries.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4),
            expressions: ExpressionOptions(), models: models)
        let poses = HeadPoseEstimator(model: try CanonicalFaceModel(models: models))
        let sets: [(String, [LabelledExpression])] = [
            ("muxspace", try LabelledExpression.muxspace(root)), ("jaffe", try LabelledExpression.jaffe(root)),
            ("fer2013", try LabelledExpression.fer2013(root)), ("yalefaces", try LabelledExpression.yalefaces(root)),
        ]
        let all = sets.flatMap { name, images in images.map { (name, $0) } }
        var peer: [String: BlendshapePeer.Picture] = [:]
        if case .success(let runner) = BlendshapePeer.locate() {
            peer = try runner.pictures(all.map(\.1.imagePath))
        }
        let expressions = FacialExpression.allCases.map(\.rawValue)
        var header = ["set", "file", "label", "person", "found", "yaw", "pitch", "roll"] + expressions
        header += Blendshapes.names.map { "bs_" + $0 } + Blendshapes.names.map { "peer_" + $0 }
        if !noMesh { header += (0..<FaceLandmark.meshPointCount).flatMap { ["x\($0)", "y\($0)", "z\($0)"] } }
        var text = header.joined(separator: ",") + "\n"
        for (set, image) in all {
            var row = [set, image.imagePath, image.label, image.subject]
            let frame = try ImageDecoder.decode(file: image.imagePath)
            let face = try analyzer.analyze(frame).largestFace
            let fit = face.flatMap { poses.fit(points: $0.mesh.points) }
            let frontal = fit.flatMap { HeadPoseEstimator.frontal(points: face?.mesh.points ?? [], fit: $0.1) }
            row.append(face == nil ? "0" : "1")
            let pose = fit?.0
            row += [pose?.yaw, pose?.pitch, pose?.roll].map(Self.number)
            row += FacialExpression.allCases.map { Self.number(face?.expressions?[$0]) }
            row += Blendshapes.names.map { Self.number(face?.blendshapes?[$0]) }
            row += Blendshapes.names.map { Self.number(peer[image.imagePath]?.blendshapes?[$0]) }
            if !noMesh {
                row += (0..<FaceLandmark.meshPointCount).flatMap { index -> [String] in
                    guard let p = frontal?.points[index] else { return ["", "", ""] }
                    return [p.x, p.y, p.z].map { String(format: "%.5f", $0) }
                }
            }
            text += row.joined(separator: ",") + "\n"
        }
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        print("expression-table: \(all.count) pictures, \(peer.count) read by the peer, written to \(output)")
    }

    private static func number(_ value: Double?) -> String { value.map { String(format: "%.6g", $0) } ?? "" }
}
