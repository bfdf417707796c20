import Foundation
import Mien
import MienTesting

/// Expression accuracy as ROC-AUC on labelled stills: smile for happy faces, eye closure for sleepy and
/// winking ones, brow raise + mouth open for surprise, and which eye a wink closes.
struct ExpressionEvaluation {
    let sets: EvalSets
    let models: ModelStore

    /// The expressions of the largest face of each image (nil when no face is found).
    private func score(_ images: [LabelledExpression], analyzer: FaceAnalyzer) throws -> [(String, TrackedFace?)] {
        try images.map { image in
            let frame = try ImageDecoder.decode(file: image.imagePath)
            return (image.label, try analyzer.analyze(frame).largestFace)
        }
    }

    func run() throws -> [String: Any] {
        let analyzer = try FaceAnalyzer(
            mode: .discreteImages, detection: DetectionOptions(faceMode: .small, maximumFaces: 4),
            expressions: ExpressionOptions(), models: models)
        let root = sets.root
        let hasYale = sets.has("yalefaces")
        let hasMux = sets.has("muxspace_facial_expressions")
        let yale = hasYale ? try score(LabelledExpression.yalefaces(root), analyzer: analyzer) : []
        let jaffe = hasMux ? try score(LabelledExpression.jaffe(root), analyzer: analyzer) : []
        let mux = hasMux ? try score(LabelledExpression.muxspace(root), analyzer: analyzer) : []
        var result: [String: Any] = [:]

        func smile(_ f: TrackedFace) -> Double? { f.expressions?[.smile] }
        func closure(_ f: TrackedFace) -> Double? { f.expressions?[.eyeClosure] }
        func surprise(_ f: TrackedFace) -> Double? {
            guard let e = f.expressions, let brow = e[.browRaise], let mouth = e[.mouthOpen] else { return nil }
            return (brow + mouth) / 2
        }
        let tasks: [(String, [(String, TrackedFace?)], (TrackedFace) -> Double?, Set<String>, Set<String>?)] = [
            ("smile_yalefaces", yale, smile, ["happiness"], nil),
            ("smile_jaffe", jaffe, smile, ["happiness"], nil),
            ("smile_muxspace", mux, smile, ["happiness"], ["neutral"]),
            ("eye_closure_yalefaces", yale, closure, ["sleepy", "wink"], ["neutral"]),
            ("surprise_yalefaces", yale, surprise, ["surprise"], ["neutral"]),
            ("surprise_jaffe", jaffe, surprise, ["surprise"], ["neutral"]),
            ("surprise_muxspace", mux, surprise, ["surprise"], ["neutral"]),
        ]
        for (name, set, measure, positive, negative) in tasks where !set.isEmpty {
            var positives: [Double] = []
            var negatives: [Double] = []
            // The same, restricted to faces without quality flags (the scores Mien vouches for).
            var trustedPositives: [Double] = []
            var trustedNegatives: [Double] = []
            var missed = 0
            for (label, face) in set where positive.contains(label) || (negative?.contains(label) ?? true) {
                guard let face, let value = measure(face) else {
                    missed += 1
                    continue
                }
                if positive.contains(label) { positives.append(value) } else { negatives.append(value) }
                guard face.flags.isEmpty else { continue }
                if positive.contains(label) { trustedPositives.append(value) } else { trustedNegatives.append(value) }
            }
            let auc = ROC.auc(positives: positives, negatives: negatives)
            let trusted = ROC.auc(positives: trustedPositives, negatives: trustedNegatives)
            result[name + "_auc"] = round3(auc)
            result[name + "_counts"] = [positives.count, negatives.count, missed]
            result[name + "_unflagged_auc"] = round3(trusted)
            result[name + "_unflagged_counts"] = [trustedPositives.count, trustedNegatives.count]
            print(
                "expressions \(name): ROC-AUC \(round3(auc)) (\(positives.count) positive, \(negatives.count)"
                    + " negative, \(missed) without a face); faces without quality flags \(round3(trusted))"
                    + " (\(trustedPositives.count) / \(trustedNegatives.count))")
        }

        guard hasYale else { return result }
        // CIDetector booleans at their documented thresholds.
        let labelledYale = yale.compactMap { label, face in face.map { (label, $0) } }
        let smiles = labelledYale.filter { $0.1.expressions?.hasSmile == true }.map(\.0)
        let happy = labelledYale.filter { $0.0 == "happiness" }.count
        result["has_smile_yalefaces"] = [
            "true_positive": smiles.filter { $0 == "happiness" }.count,
            "false_positive": smiles.filter { $0 != "happiness" }.count,
            "happy": happy,
        ]

        // Wink side: the closed eye must be the labelled one (and the other open).
        let winks = try LabelledExpression.yalefaces(root).filter { $0.label == "wink" }
        var correct = 0
        var bothClosed = 0
        for wink in winks {
            guard let face = try analyzer.analyze(ImageDecoder.decode(file: wink.imagePath)).faces.first,
                let e = face.expressions, let left = e.left[.eyeClosure], let right = e.right[.eyeClosure]
            else { continue }
            let side = left > right ? "left" : "right"
            if side == LabelledExpression.yalefacesWinkSide[wink.subject] { correct += 1 }
            if e.leftEyeClosed == true, e.rightEyeClosed == true { bothClosed += 1 }
        }
        result["wink_side_correct"] = [correct, winks.count]
        result["wink_both_eyes_closed"] = bothClosed
        print("expressions wink side: \(correct)/\(winks.count) correct, \(bothClosed) read as both eyes closed")
        return result
    }
}
