import Foundation
import Mien
import MienTesting
import Testing

/// `make eval` scores what users get: its `PictureReader` and `mien detect` (the `Detector` behind `mien analyze`)
/// give the same faces, to the last bit, for the same pictures and options.
@Suite("The evaluation runs the users' path", .timeLimit(.minutes(10)))
struct EvalPathTests {
    /// The faces of each picture as `mien detect` prints them (its JSON read back), by picture.
    func detected(_ paths: [String], _ flags: [String]) throws -> [String: [Int: FaceResult]] {
        let run = try runMien(["detect"] + flags + paths)
        #expect(run.status == 0, "\(run.stderr)")
        var faces: [String: [Int: FaceResult]] = [:]
        for line in run.stdout.split(separator: "\n") {
            let result = try JSONDecoder().decode(DetectorResult.self, from: Data(line.utf8))
            faces[try #require(result.input)] = result.faces
        }
        return faces
    }

    /// For each group the eval reads pictures with, the eval's reader and `mien detect` with the flags that say
    /// the same agree on every face of every picture.
    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func theEvalsPictureScores_equalMienDetects() throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        let models = try ModelStore()
        // A few labelled pictures of each set the eval scores with that reader.
        let yale = try LabelledExpression.yalefaces(root).prefix(6).map(\.imagePath)
        let fer = try LabelledExpression.fer2013(root).prefix(6).map(\.imagePath)
        let utk = try LabelledExpression.csv(
            root.appendingPathComponent("utkface_crop_subset"), table: "labels.csv", file: "file", label: "gender"
        ).prefix(4).map(\.imagePath)
        let small = ["--face-mode", "small", "--max-faces", "4"]
        let cases: [(String, PictureReader, [String], [String])] = [
            (
                "expressions (ExpressionEvaluation)", try PictureReader(groups: [.expressions], models: models), yale,
                small + ["--expressions", "--landmarks", "--blendshapes"]
            ),
            (
                "emotions on crops (EmotionComparison)", try EmotionComparison.faceCropReader(models: models), fer,
                small + ["--emotions"]
            ),
            (
                "emotions and appearance (AffectEvaluation)",
                try PictureReader(groups: [.emotions, .appearance], features: false, models: models), utk,
                small + ["--emotions", "--appearance"]
            ),
        ]
        for (name, reader, paths, flags) in cases {
            let theirs = try detected(paths, flags)
            var faces = 0
            for path in paths {
                let ours = try #require(try reader.read(path).faces)
                faces += ours.count
                #expect(theirs[path] == ours, "\(name): \(path)")
            }
            // The comparison must have compared faces: most of these pictures hold one (a fer2013 crop may not).
            #expect(faces >= paths.count - 1, "\(name): \(faces) faces in \(paths.count) pictures")
        }
    }
}
