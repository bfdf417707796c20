import Foundation
import Mien
import MienTesting

/// Emotion accuracy (Mien's fusion next to fer's CNN alone, in the same run), gender and glasses.
struct AffectEvaluation {
    let sets: EvalSets
    let models: ModelStore

    func run() throws -> [String: Any] {
        let reader = try PictureReader(groups: [.emotions, .appearance], features: false, models: models)
        // The emotion sets are face crops (FER-2013's 48 x 48 faces fill their pictures): where the detector
        // finds nothing, the whole picture is tried as the face (`DetectionOptions.wholePictureFallback`).
        let cropReader = try EmotionComparison.faceCropReader(models: models)
        let cnn = try EmotionNetwork(models: models)
        var result: [String: Any] = [:]
        let root = sets.root
        var emotionSets: [(String, [LabelledExpression])] = []
        if sets.has("fer2013_test") { emotionSets.append(("fer2013", try LabelledExpression.fer2013(root))) }
        if sets.has("muxspace_facial_expressions") {
            emotionSets.append(("muxspace", try LabelledExpression.muxspace(root)))
            emotionSets.append(("jaffe", try LabelledExpression.jaffe(root)))
        }
        for (name, images) in emotionSets {
            let comparison = try EmotionComparison(images: images, reader: cropReader, cnn: cnn)
            let m = comparison.mien
            let a = comparison.ferAlone
            result[name] = [
                "images": m.count, "without_face": comparison.withoutFace, "mien_accuracy": round3(m.accuracy),
                "mien_macro_f1": round3(m.macroF1), "fer_alone_accuracy": round3(a.accuracy),
                "fer_alone_macro_f1": round3(a.macroF1),
            ]
            print(
                "emotions \(name): Mien \(round3(m.accuracy * 100)) % (macro-F1 \(round3(m.macroF1))), fer alone"
                    + " \(round3(a.accuracy * 100)) % (macro-F1 \(round3(a.macroF1))); \(m.count) images,"
                    + " \(comparison.withoutFace) without a face")
        }

        if let utkFolder = sets.folder("utkface_crop_subset") {
            result["gender_utkface"] = try gender(utkFolder, reader)
        }
        if let glasses = try glasses(reader) { result["glasses"] = glasses }
        return result
    }

    /// Gender on UTKFace crops.
    private func gender(_ folder: URL, _ reader: PictureReader) throws -> [String: Any] {
        let utk = try LabelledExpression.csv(folder, table: "labels.csv", file: "file", label: "gender")
        var decided = 0
        var right = 0
        var unknown = 0
        var missed = 0
        for image in utk {
            guard let gender = try reader.largestFace(image.imagePath)?.gender else {
                missed += 1
                continue
            }
            if gender == .unknown {
                unknown += 1
                continue
            }
            decided += 1
            if gender.rawValue == image.label { right += 1 }
        }
        let genderAccuracy = Double(right) / Double(max(decided, 1))
        let genderOverall = Double(right) / Double(max(utk.count, 1))
        let row: [String: Any] = [
            "images": utk.count, "decided": decided, "unknown": unknown, "without_face": missed,
            "accuracy_decided": round3(genderAccuracy), "accuracy_all": round3(genderOverall),
        ]
        print(
            "gender utkface: \(round3(genderAccuracy * 100)) % of \(decided) decided, \(unknown) unknown,"
                + " \(missed) without a face (\(round3(genderOverall * 100)) % of all \(utk.count))")
        return row
    }

    /// Glasses on faces without quality flags, per set and all together; nil when no set is there.
    ///
    /// The accuracy is the users' (`PictureReader`); the cross-validation studies the features behind the decision,
    /// which results do not carry, so it reads the stages' own faces (`FaceAnalyzer`).
    private func glasses(_ reader: PictureReader) throws -> [String: Any]? {
        var glassesRows: [String: Any] = [:]
        var allRight = 0
        var allCount = 0
        // The person column where the set has one; MeGlass names its identity in the file name
        // (`<user>@N05_identity_2@<photo>.jpg`); the selfies name nobody, so each is its own person.
        let labelled: [(String, String, String, String, String?)] = [
            ("yalefaces", "yalefaces", "file_png", "glasses", "subject"),
            ("sunglasses_selfies", "sunglasses_selfies", "file", "wearing_sunglasses", nil),
            ("meglass", "meglass_samples", "file", "black_eyeglasses", nil),
            ("pointing04", "pointing04_headpose", "file", "glasses_visual", "person"),
        ]
        var glassesSets: [(String, [LabelledExpression])] = []
        for (name, set, file, label, subject) in labelled {
            guard let folder = sets.folder(set) else { continue }
            var images = try LabelledExpression.csv(
                folder, table: "labels.csv", file: file, label: label, subject: subject)
            for i in images.indices where images[i].subject.isEmpty {
                let fileName = URL(fileURLWithPath: images[i].imagePath).lastPathComponent
                images[i].subject =
                    name == "meglass" ? fileName.split(separator: "@").prefix(2).joined(separator: "@") : fileName
            }
            glassesSets.append((name, images))
        }
        guard !glassesSets.isEmpty else { return nil }
        // FaceAnalyzer, not a Detector: this reads the appearance stages' own faces, which results do not carry.
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4), emotions: true,
            appearance: true, models: models)
        var samples: [GlassesCrossValidation.Sample] = []
        for (name, images) in glassesSets {
            var right = 0
            var count = 0
            var flagged = 0
            for image in images {
                guard let face = try reader.largestFace(image.imagePath), let wearsGlasses = face.glasses else {
                    continue
                }
                // Faces turned beyond the reliable range are flagged; glasses are judged on the others.
                guard face.flags.isEmpty else {
                    flagged += 1
                    continue
                }
                count += 1
                if wearsGlasses == (image.label == "1") { right += 1 }
                guard
                    let appearance = try analyzer.analyze(ImageDecoder.decode(file: image.imagePath)).largestFace?
                        .appearance
                else { continue }
                samples.append(
                    .init(
                        set: name, person: "\(name)/\(image.subject)", wearsGlasses: image.label == "1",
                        evidence: appearance.glassesEvidence, lensDarkness: appearance.lensDarkness))
            }
            allRight += right
            allCount += count
            glassesRows[name] = [
                "faces": count, "flagged": flagged, "accuracy": round3(Double(right) / Double(max(count, 1))),
            ]
            print(
                "glasses \(name): \(round3(Double(right) / Double(max(count, 1)) * 100)) % of \(count) unflagged faces"
                    + " (\(flagged) flagged, \(images.count) images)")
        }
        glassesRows["all_accuracy"] = round3(Double(allRight) / Double(max(allCount, 1)))
        print("glasses all: \(round3(Double(allRight) / Double(max(allCount, 1)) * 100)) % of \(allCount) faces")
        glassesRows["cross_validated"] = GlassesCrossValidation().run(samples)
        return glassesRows
    }
}
