import ArgumentParser
import Foundation
import Mien
import MienTesting

/// Expression accuracy as ROC-AUC on labelled stills: smile for happy faces, eye closure for sleepy and
/// winking ones, brow raise + mouth open for surprise, and which eye a wink closes.
struct ExpressionEvaluation {
    let sets: EvalSets
    let models: ModelStore

    /// The largest face of each image as `mien analyze` reports it (nil when no face is found).
    private func score(_ images: [LabelledExpression], reader: PictureReader) throws -> [(String, FaceResult?)] {
        try images.map { image in (image.label, try reader.largestFace(image.imagePath)) }
    }

    /// `ExpressionCrossValidation` on each set's faces: smile on every set, eye closure on yalefaces, surprise
    /// on every set (the tasks above, with the same labels).
    private func crossValidate(_ sets: [(String, [LabelledExpression], [(String, FaceResult?)])]) throws
        -> [String: Any]
    {
        let poses = HeadPoseEstimator(model: try CanonicalFaceModel(models: models))
        let validation = ExpressionCrossValidation()
        var result: [String: Any] = [:]
        for (name, images, faces) in sets where !images.isEmpty {
            var samples: [ExpressionCrossValidation.Sample] = []
            for (image, (label, face)) in zip(images, faces) {
                guard let face, let shapes = face.blendshapes, let mesh = face.mesh,
                    let (_, fit) = poses.fit(points: mesh),
                    let frontal = HeadPoseEstimator.frontal(points: mesh, fit: fit)
                else { continue }
                samples.append(
                    .init(person: image.subject, label: label, shapes: shapes, features: FaceFeatures(face: frontal))
                )
            }
            let tasks: [(ExpressionCrossValidation.Task, Set<String>, Set<String>?)] =
                [
                    (ExpressionCrossValidation.smile, ["happiness"], name == "muxspace" ? ["neutral"] : nil),
                    (ExpressionCrossValidation.surprise, ["surprise"], ["neutral"]),
                ]
                + (name == "yalefaces"
                    ? [(ExpressionCrossValidation.eyeClosure, ["sleepy", "wink"], ["neutral"])] : [])
            for (task, positive, negative) in tasks {
                result["\(task.name)_\(name)"] = validation.run(
                    task, set: name, samples: samples, positive: positive, negative: negative)
            }
        }
        return result
    }

    /// Issue 24's verdict from the figures already in `result`: Mien's AUC at least the peer's on every task
    /// and set (each on the pictures it reads, to the printed 3 decimals), and at least as many faces found
    /// in every set of crops; the tasks and sets that fall short are listed.
    static func atLeastPeer(_ result: [String: Any]) -> [String: Any] {
        var short: [String] = []
        for key in result.keys.sorted() where key.hasSuffix("_peer_auc") {
            let task = String(key.dropLast("_peer_auc".count))
            guard let peer = result[key] as? Double, let mien = result[task + "_auc"] as? Double else { continue }
            if mien < peer { short.append(task) }
        }
        for key in result.keys.sorted() where key.hasPrefix("crops_found_") {
            guard let counts = result[key] as? [String: Int], let mien = counts["mien"], let peer = counts["peer"]
            else { continue }
            if mien < peer { short.append(key) }
        }
        print("expressions Mien at least MediaPipe: " + (short.isEmpty ? "on every task and set" : "not on \(short)"))
        return ["every_auc_and_faces_found": short.isEmpty, "short": short]
    }

    func run() throws -> [String: Any] {
        let reader = try PictureReader(groups: [.expressions], models: models)
        let root = sets.root
        let hasYale = sets.has("yalefaces")
        let hasMux = sets.has("muxspace_facial_expressions")
        let yaleImages = hasYale ? try LabelledExpression.yalefaces(root) : []
        let jaffeImages = hasMux ? try LabelledExpression.jaffe(root) : []
        let muxImages = hasMux ? try LabelledExpression.muxspace(root) : []
        let yale = try score(yaleImages, reader: reader)
        let jaffe = try score(jaffeImages, reader: reader)
        let mux = try score(muxImages, reader: reader)
        var result: [String: Any] = [:]
        // The peer reads the same pictures (paths in the same order as the scores above).
        var peerPictures: [String: BlendshapePeer.Picture]?
        var peerRunner: BlendshapePeer?
        switch BlendshapePeer.locate() {
        case .success(let peer):
            peerRunner = peer
            peerPictures = try peer.pictures((yaleImages + jaffeImages + muxImages).map(\.imagePath))
            result["peer"] = BlendshapePeer.name
        case .failure(let unavailable):
            print("SKIPPED: the MediaPipe blendshape peer: \(unavailable.reason)")
            result["peer_skipped"] = unavailable.reason
        }
        let paths: [String: [String]] = [
            "yalefaces": yaleImages.map(\.imagePath), "jaffe": jaffeImages.map(\.imagePath),
            "muxspace": muxImages.map(\.imagePath),
        ]

        func smile(_ f: FaceResult) -> Double? { f.expressions?[.smile] }
        func closure(_ f: FaceResult) -> Double? { f.expressions?[.eyeClosure] }
        func surprise(_ f: FaceResult) -> Double? {
            guard let e = f.expressions, let brow = e[.browRaise], let mouth = e[.mouthOpen] else { return nil }
            return (brow + mouth) / 2
        }
        typealias PeerMeasure = ([String: Double]) -> Double?
        let tasks:
            [(String, [(String, FaceResult?)], (FaceResult) -> Double?, Set<String>, Set<String>?, PeerMeasure)] = [
                ("smile_yalefaces", yale, smile, ["happiness"], nil, BlendshapePeer.smile),
                ("smile_jaffe", jaffe, smile, ["happiness"], nil, BlendshapePeer.smile),
                ("smile_muxspace", mux, smile, ["happiness"], ["neutral"], BlendshapePeer.smile),
                ("eye_closure_yalefaces", yale, closure, ["sleepy", "wink"], ["neutral"], BlendshapePeer.eyeClosure),
                ("surprise_yalefaces", yale, surprise, ["surprise"], ["neutral"], BlendshapePeer.surprise),
                ("surprise_jaffe", jaffe, surprise, ["surprise"], ["neutral"], BlendshapePeer.surprise),
                ("surprise_muxspace", mux, surprise, ["surprise"], ["neutral"], BlendshapePeer.surprise),
            ]
        for (name, set, measure, positive, negative, peerMeasure) in tasks where !set.isEmpty {
            if let peerPictures, let setPaths = paths[String(name.split(separator: "_").last ?? "")] {
                // The peer on the same pictures and labels: its plain blendshape reading of the expression.
                var peer = TaskScores()
                var mien = TaskScores()
                // Both on the pictures where both found a face: the same faces, so the AUCs compare directly.
                var peerCommon = TaskScores()
                var mienCommon = TaskScores()
                for ((label, face), path) in zip(set, setPaths)
                where positive.contains(label) || (negative?.contains(label) ?? true) {
                    let isPositive = positive.contains(label)
                    let peerValue = peerPictures[path]?.blendshapes.flatMap(peerMeasure)
                    let mienValue = face.flatMap(measure)
                    peer.add(peerValue, positive: isPositive)
                    mien.add(mienValue, positive: isPositive)
                    if let peerValue, let mienValue {
                        peerCommon.add(peerValue, positive: isPositive)
                        mienCommon.add(mienValue, positive: isPositive)
                    }
                }
                result[name + "_peer_auc"] = round3(peer.auc)
                result[name + "_peer_counts"] = peer.counts
                if name.hasPrefix("surprise") {
                    // Mien's surprise is built from browOuterUp and jawOpen, not browInnerUp: its own source too.
                    var source = TaskScores()
                    for ((label, _), path) in zip(set, setPaths)
                    where positive.contains(label) || (negative?.contains(label) ?? true) {
                        source.add(
                            peerPictures[path]?.blendshapes.flatMap(BlendshapePeer.surpriseSource),
                            positive: positive.contains(label))
                    }
                    result[name + "_source_auc"] = round3(source.auc)
                    print(
                        "expressions \(name): its blendshape source, (browOuterUp + jawOpen) / 2: \(round3(source.auc))"
                    )
                }
                result[name + "_common_auc"] = ["mien": round3(mienCommon.auc), "peer": round3(peerCommon.auc)]
                result[name + "_common_counts"] = Array(mienCommon.counts.prefix(2))
                print(
                    "expressions \(name): Mien \(round3(mien.auc)) (\(mien.counts[2]) without a face), MediaPipe"
                        + " blendshapes \(round3(peer.auc)) (\(peer.counts[2]) without a face); on the"
                        + " \(mienCommon.positives.count + mienCommon.negatives.count) pictures both read:"
                        + " Mien \(round3(mienCommon.auc)), MediaPipe \(round3(peerCommon.auc))")
            }
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

        if let peerPictures, let peerRunner {
            // fer2013's 48 x 48 crops: read here for the prototypes and the faces-found counts only.
            let ferImages = sets.has("fer2013_test") ? try LabelledExpression.fer2013(root) : []
            let ferPeer = try ferImages.isEmpty ? [:] : peerRunner.pictures(ferImages.map(\.imagePath))
            try compareFacesFound(
                jaffe: jaffeImages, muxspace: muxImages, fer: ferImages, peer: peerPictures, ferPeer: ferPeer,
                runner: peerRunner, into: &result)
            let fer = try score(ferImages, reader: reader)
            func prototypeSet(
                _ name: String, _ images: [LabelledExpression], _ faces: [(String, FaceResult?)],
                _ peer: [String: BlendshapePeer.Picture]
            ) -> ExpressionPrototypes.LabelledSet {
                ExpressionPrototypes.LabelledSet(
                    name: name,
                    pictures: zip(images, faces).map { image, scored in
                        (scored.0, image.subject, scored.1, peer[image.imagePath])
                    })
            }
            result["prototypes"] = ExpressionPrototypes().run(
                [
                    prototypeSet("muxspace", muxImages, mux, peerPictures),
                    prototypeSet("jaffe", jaffeImages, jaffe, peerPictures),
                    prototypeSet("fer2013", ferImages, fer, ferPeer),
                ].filter { !$0.pictures.isEmpty })
        } else {
            print("SKIPPED: expressions prototypes: they compare with the MediaPipe blendshape peer, not installed")
        }
        result["cross_validated"] = try crossValidate(
            [("yalefaces", yaleImages, yale), ("jaffe", jaffeImages, jaffe), ("muxspace", muxImages, mux)])
        if peerPictures != nil { result["mien_at_least_peer"] = Self.atLeastPeer(result) }

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
            // The first face (the lowest ID), as before the eval read pictures through a `Detector`.
            guard let face = try reader.read(wink.imagePath).faces?.min(by: { $0.key < $1.key })?.value,
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
