import Foundation
import Mien
import MienTesting
import Testing

@Suite("Emotions and appearance on real faces")
struct AffectRealFaceTests {
    private func analyzer() throws -> FaceAnalyzer {
        try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4), emotions: true,
            appearance: true, models: repositoryModels())
    }

    private func largestFace(_ path: String, _ analyzer: FaceAnalyzer) throws -> TrackedFace? {
        try analyzer.analyze(ImageDecoder.decode(file: path)).largestFace
    }

    @Test func smilingAstronaut_isJoyful_positive_engaged_withoutGlasses() throws {
        let face = try #require(try largestFace(SampleMedia.astronautPath, analyzer()))
        let emotions = try #require(face.emotions)
        #expect(emotions.dominant == .joy && (emotions[.joy] ?? 0) > 90)
        #expect(emotions.valence > 50 && emotions.engagement > 50)
        #expect((emotions[.contempt] ?? 100) < 10)
        let appearance = try #require(face.appearance)
        // Eileen Collins was 42 when photographed; the model says about 35.
        #expect((25...50).contains(appearance.age))
        #expect(!appearance.glasses && appearance.gender != .male)
    }

    @Test func emotionCNN_givesProbabilities() throws {
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let face = try #require(
            try FaceAnalyzer(mode: .image, models: repositoryModels()).analyze(frame).faces.first)
        let p = try EmotionNetwork(models: repositoryModels()).probabilities(in: frame, points: face.mesh.points)
        #expect(p.count == 7 && abs(p.reduce(0, +) - 1) < 1e-3 && p.allSatisfy { $0 >= 0 })
    }

    @Test func appearanceOff_leavesItAbsent() throws {
        let plain = try FaceAnalyzer(
            mode: .image, expressions: ExpressionOptions(), models: repositoryModels())
        let face = try #require(try largestFace(SampleMedia.astronautPath, plain))
        #expect(face.appearance == nil && face.emotions == nil && face.expressions != nil)
    }

    @Test(.needsEvaluationData) func utkface_genderAccuracy_isAbove95Percent() throws {
        let root = try evaluationRoot()
        let images = try LabelledExpression.csv(
            root.appendingPathComponent("utkface_crop_subset"), table: "labels.csv", file: "file", label: "gender")
        let analyzer = try analyzer()
        var right = 0
        var decided = 0
        for image in images.prefix(300) {
            guard let appearance = try largestFace(image.imagePath, analyzer)?.appearance, appearance.gender != .unknown
            else { continue }
            decided += 1
            if appearance.gender.rawValue == image.label { right += 1 }
        }
        #expect(decided >= 280 && Double(right) / Double(decided) >= 0.95, "\(right)/\(decided)")
    }

    @Test(.needsEvaluationData) func yalefacesAndMeGlass_glassesAreSeen() throws {
        let root = try evaluationRoot()
        let analyzer = try analyzer()
        let images =
            try LabelledExpression.csv(
                root.appendingPathComponent("yalefaces"), table: "labels.csv", file: "file_png", label: "glasses")
            + LabelledExpression.csv(
                root.appendingPathComponent("meglass_samples"), table: "labels.csv", file: "file",
                label: "black_eyeglasses")
        var right = 0
        for image in images {
            let appearance = try #require(try largestFace(image.imagePath, analyzer)?.appearance)
            if appearance.glasses == (image.label == "1") { right += 1 }
        }
        #expect(images.count == 25 && right >= 22, "\(right)/\(images.count)")
    }

    /// Dark lenses whose bridge the nose line misses are seen by the eyes' hidden whites, and shadowed,
    /// deep-set eyes without glasses are not taken for lenses.
    @Test(.needsEvaluationData) func darkLenses_areSeenByTheHiddenWhites_shadowedEyesAreNot() throws {
        let root = try evaluationRoot()
        let analyzer = try analyzer()
        let selfies = ["selfies_3__images_282.jpeg", "selfies_4__images_380.jpeg", "selfies_7__done__images_467.jpeg"]
        for name in selfies {
            let path = root.appendingPathComponent("sunglasses_selfies/images/\(name)").path
            let appearance = try #require(try largestFace(path, analyzer)?.appearance)
            #expect(appearance.glassesEvidence < Appearance.glassesThreshold, "\(name): the bridge is missed")
            #expect(appearance.glasses && appearance.lensDarkness >= Appearance.lensDarknessThreshold, "\(name)")
        }
        // The darkest eyes without glasses in the dev data (2.6, 2.5, 2.3): yalefaces' lighting from above,
        // a MeGlass face in shade, a Pointing'04 face turned and lit from the side.
        let bare = [
            "yalefaces/png/subject01.noglasses.png", "meglass_samples/7134850@N05_identity_2@8417960035_0.jpg",
            "pointing04_headpose/Person04/person04135-15+30.jpg",
        ]
        for file in bare {
            let appearance = try #require(try largestFace(root.appendingPathComponent(file).path, analyzer)?.appearance)
            #expect(appearance.lensDarkness < Appearance.lensDarknessThreshold, "\(file): \(appearance.lensDarkness)")
        }
    }

    @Test(.needsEvaluationData) func pointing04_glassesAreSeen_andBowedHeadsAreNotTakenForGlasses() throws {
        let root = try evaluationRoot()
        let analyzer = try analyzer()
        // Person 1 wears glasses, persons 2 and 7 do not; person 7's bowed head throws brow shadows across
        // the nose bridge (the step alone called 33 % of those faces glasses).
        let labels = try LabelledPose.pointing04(root.appendingPathComponent("pointing04_headpose")).filter { label in
            ["Person01/", "Person02/", "Person07/"].contains { label.imagePath.contains($0) } && abs(label.pan) <= 45
        }
        var right = 0
        var judged = 0
        for label in labels {
            // Faces turned beyond the reliable range are flagged; glasses are judged on the others.
            guard let face = try largestFace(label.imagePath, analyzer), face.flags.isEmpty,
                let appearance = face.appearance
            else { continue }
            judged += 1
            if appearance.glasses == label.glasses { right += 1 }
        }
        print("glasses on Pointing'04 persons 1, 2, 7: \(right) of \(judged) right")
        #expect(judged >= 140 && Double(right) / Double(judged) >= 0.89, "\(right)/\(judged)")
    }

    /// Mien against fer's CNN alone on `images` (as `make eval` compares them).
    private func comparison(_ images: [LabelledExpression]) throws -> EmotionComparison {
        let models = try repositoryModels()
        let result = try EmotionComparison(
            images: images, reader: EmotionComparison.faceCropReader(models: models),
            cnn: EmotionNetwork(models: models))
        print(
            "Mien \(result.mien.accuracy) (macro-F1 \(result.mien.macroF1)), fer alone \(result.ferAlone.accuracy)"
                + " (\(result.ferAlone.macroF1)); \(result.mien.count) images, \(result.withoutFace) without a face")
        return result
    }

    @Test(.needsEvaluationData) func fer2013_fusionBeatsTheCNNAlone() throws {
        let root = try evaluationRoot()
        // Every fifth picture of the PublicTest half (718 of 3,589), to keep the test short.
        let images = try LabelledExpression.fer2013(root).enumerated().filter { $0.offset % 5 == 0 }.map(\.element)
        let result = try comparison(images)
        // Dev data: 68.2 % (macro-F1 0.670) against 64.3 % (0.640); 43 pictures without a face (32 while the
        // whole-picture fallback took a face at presence 0.5 once; it now needs 0.9 twice).
        #expect(result.mien.count == 718 && result.withoutFace <= 50)
        #expect(result.mien.accuracy >= 0.67 && result.mien.accuracy > result.ferAlone.accuracy + 0.02)
        #expect(result.mien.macroF1 > result.ferAlone.macroF1)
    }

    @Test(.needsEvaluationData) func muxspace_fusionBeatsTheCNNAlone() throws {
        let root = try evaluationRoot()
        // Every third crop (390 of 1,170).
        let images = try LabelledExpression.muxspace(root).enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let result = try comparison(images)
        // Dev data: 49.7 % (macro-F1 0.338) against 46.4 % (0.312).
        #expect(result.mien.accuracy >= 0.48 && result.mien.accuracy > result.ferAlone.accuracy)
        #expect(result.mien.macroF1 > result.ferAlone.macroF1)
    }

    @Test(.needsEvaluationData) func jaffe_fusionBeatsTheCNNAlone() throws {
        let root = try evaluationRoot()
        let result = try comparison(LabelledExpression.jaffe(root))
        // Dev data: 18 of 34 against 15 of 34.
        #expect(result.mien.count == 34 && result.withoutFace == 0)
        #expect(result.mien.accuracy >= 17.0 / 34 && result.mien.accuracy > result.ferAlone.accuracy)
    }
}
