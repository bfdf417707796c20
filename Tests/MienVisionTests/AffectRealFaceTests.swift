import Foundation
import Mien
import MienTesting
import Testing

@Suite("Emotions and appearance on real faces")
struct AffectRealFaceTests {
    private func analyzer() throws -> FaceAnalyzer {
        try FaceAnalyzer(
            mode: .discreteImages, detection: DetectionOptions(faceMode: .small, maximumFaces: 4), emotions: true,
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
            try FaceAnalyzer(mode: .discreteImages, models: repositoryModels()).analyze(frame).faces.first)
        let p = try EmotionNetwork(models: repositoryModels()).probabilities(in: frame, points: face.mesh.points)
        #expect(p.count == 7 && abs(p.reduce(0, +) - 1) < 1e-3 && p.allSatisfy { $0 >= 0 })
    }

    @Test func appearanceOff_leavesItAbsent() throws {
        let plain = try FaceAnalyzer(
            mode: .discreteImages, expressions: ExpressionOptions(), models: repositoryModels())
        let face = try #require(try largestFace(SampleMedia.astronautPath, plain))
        #expect(face.appearance == nil && face.emotions == nil && face.expressions != nil)
    }

    @Test func utkface_genderAccuracy_isAbove95Percent() throws {
        guard let root = evaluationData(for: "gender on utkface") else { return }
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

    @Test func yalefacesAndMeGlass_glassesAreSeen() throws {
        guard let root = evaluationData(for: "glasses on yalefaces and MeGlass") else { return }
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

    @Test func pointing04_glassesAreSeen_andBowedHeadsAreNotTakenForGlasses() throws {
        guard let root = evaluationData(for: "glasses on Pointing'04") else { return }
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

    @Test func jaffe_fusionBeatsTheCNNAlone() throws {
        guard let root = evaluationData(for: "emotions on JAFFE") else { return }
        let analyzer = try analyzer()
        let cnn = try EmotionNetwork(models: repositoryModels())
        let names: [String: Emotion] = [
            "anger": .anger, "disgust": .disgust, "fear": .fear, "happiness": .joy, "sadness": .sadness,
            "surprise": .surprise, "neutral": .neutral,
        ]
        var mien = 0
        var alone = 0
        let images = try LabelledExpression.jaffe(root)
        for image in images {
            let frame = try ImageDecoder.decode(file: image.imagePath)
            let p = try cnn.probabilities(in: frame, tensorFromFrame: EmotionNetwork.wholePicture(of: frame))
            if FacialEmotionCNN.classes[p.indices.max { p[$0] < p[$1] } ?? 0] == names[image.label] { alone += 1 }
            let face = try analyzer.analyze(frame).largestFace
            if face?.emotions?.dominant == names[image.label] { mien += 1 }
        }
        // Dev data: 17/34 against 15/34.
        #expect(mien > alone && mien >= 15, "Mien \(mien), fer alone \(alone) of \(images.count)")
    }
}
