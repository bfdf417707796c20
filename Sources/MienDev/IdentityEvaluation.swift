import Foundation
import Mien
import MienTesting

/// Face verification for re-identification (issue 26).
///
/// muxspace's crops are LFW (and IMFDB) pictures named by person (`Name_Surname_0001.jpg`). Each picture's face is found as a discrete image (small faces, the whole-picture
/// fallback), aligned on its 68 points (`RecognitionChip`) and described by dlib's network. Every
/// same-person pair counts; different-person pairs are sampled with a fixed seed.
///
/// Prints ROC-AUC and TAR at FAR 0.1 % and 1 % on all pairs, then the threshold for a false-match rate of
/// 0.1 % chosen on four fifths of the people and tested on the other fifth (five person-wise folds), and the
/// chips' sharpness (`ChipSharpness`) beside the shares of pictures a sharpness floor would refuse.
struct IdentityEvaluation {
    let sets: EvalSets
    let models: ModelStore
    /// Different-person pairs sampled (with seed 26).
    static let differentPairs = 20_000
    static let folds = 5
    /// The false-match rate re-identification's threshold is chosen for.
    static let targetFalseMatchRate = 0.001

    private struct Described {
        let person: String
        let descriptor: FaceDescriptor
        let sharpness: Double
        /// Whether re-identification would use this face (`ReidentificationOptions.admits` and the sharpness
        /// floor, defaults).
        let usable: Bool
    }

    /// Two faces' people and the distance between their descriptors.
    private struct Pair {
        let people: (String, String)
        let distance: Double
    }

    func run() throws -> [String: Any] {
        guard let folder = sets.folder("muxspace_facial_expressions") else { return [:] }
        let images = folder.appendingPathComponent("images")
        let files = try FileManager.default.contentsOfDirectory(atPath: images.path).filter { $0.hasSuffix(".jpg") }
            .sorted()
        // FaceAnalyzer, not a Detector: this cuts recognition chips from the mesh to evaluate the recognition network itself.
        let analyzer = try FaceAnalyzer(
            mode: .image,
            detection: DetectionOptions(faceMode: .small, maximumFaces: 1, wholePictureFallback: true), models: models)
        let network = try FaceRecognitionNetwork(models: models)
        let gate = try ReidentificationOptions()
        var described: [Described] = []
        for file in files {
            let frame = try ImageDecoder.decode(file: images.appendingPathComponent(file).path)
            guard let face = try analyzer.analyze(frame).faces.first else { continue }
            let points = Ibug68Points.points(of: face.mesh)
            guard let transform = RecognitionChip.chipFromFrame(ibug68: points) else { continue }
            let chip = try network.chip(of: frame, chipFromFrame: transform)
            let sharpness = ChipSharpness.of(chip)
            let person = LabelledExpression.person(namingFile: file)
            described.append(
                Described(
                    person: person, descriptor: try network.descriptor(ofChip: chip), sharpness: sharpness,
                    usable: gate.admits(pose: face.pose, ibug68: points, in: frame)
                        && sharpness >= gate.minimumSharpness))
        }
        var result = verify(described, label: "all faces")
        result["pictures"] = files.count
        result["sharpness"] = sharpnessSummary(described.map(\.sharpness))
        result["usable"] = verify(
            described.filter(\.usable),
            label: "faces re-identification uses (|yaw| <= \(gate.maximumYaw), |pitch| <= \(gate.maximumPitch),"
                + " eyes >= \(gate.minimumInterocularDistance) px apart, sharpness >= \(gate.minimumSharpness))")
        return result
    }

    /// Pairs of `described`: ROC-AUC, TAR at FAR 0.1 % and 1 %, and the person-wise cross-validation.
    private func verify(_ described: [Described], label: String) -> [String: Any] {
        let people = Set(described.map(\.person))
        var same: [(Int, Int)] = []
        for i in described.indices {
            for j in described.indices where j > i && described[i].person == described[j].person { same.append((i, j)) }
        }
        var generator = SeededGenerator(seed: 26)
        var different: [(Int, Int)] = []
        while different.count < Self.differentPairs && people.count > 1 {
            let i = Int.random(in: described.indices, using: &generator)
            let j = Int.random(in: described.indices, using: &generator)
            if described[i].person != described[j].person { different.append((i, j)) }
        }
        func pair(_ indices: (Int, Int)) -> Pair {
            Pair(
                people: (described[indices.0].person, described[indices.1].person),
                distance: described[indices.0].descriptor.distance(to: described[indices.1].descriptor))
        }
        let samePairs = same.map(pair)
        let differentPairs = different.map(pair)
        let sameDistances = samePairs.map(\.distance)
        let differentDistances = differentPairs.map(\.distance)
        // ROC on similarity: the negated distance.
        let auc = ROC.auc(positives: sameDistances.map { -$0 }, negatives: differentDistances.map { -$0 })
        var result: [String: Any] = [
            "faces": described.count, "people": people.count,
            "people_with_pairs": Set(same.map { described[$0.0].person }).count, "same_pairs": same.count,
            "different_pairs": different.count, "roc_auc": auc.rounded(toPlaces: 4),
        ]
        print(
            "identity, \(label): \(described.count) muxspace pictures; \(same.count)"
                + " same-person pairs of \(result["people_with_pairs"] ?? 0) people, \(different.count) different"
                + " (seed 26); ROC-AUC \(String(format: "%.4f", auc))")
        for rate in [0.001, 0.01] {
            guard let threshold = Verification.threshold(falseMatchRate: rate, different: differentDistances) else {
                continue
            }
            let tar = Verification.acceptRate(sameDistances, threshold: threshold)
            let key = rate == 0.001 ? "far_0.1" : "far_1"
            result["tar_at_" + key] = (tar * 100).rounded(toPlaces: 2)
            result["threshold_at_" + key] = threshold.rounded(toPlaces: 4)
            print(
                "identity: TAR \(String(format: "%.2f", tar * 100)) % at FAR \(rate * 100) % (distance"
                    + " \(String(format: "%.4f", threshold)))")
        }
        result["cross_validated"] = crossValidated(people: people, same: samePairs, different: differentPairs)
        return result
    }
    /// Person-wise folds: the threshold for `targetFalseMatchRate` chosen on the pairs of the other folds'
    /// people, tested on the pairs whose people are all in the held-out fold.
    private func crossValidated(people: Set<String>, same: [Pair], different: [Pair]) -> [String: Any] {
        var generator = SeededGenerator(seed: 26)
        let fold = PersonFolds.assign(people, count: Self.folds, using: &generator)
        func foldOf(_ pair: Pair) -> (Int?, Int?) { (fold[pair.people.0], fold[pair.people.1]) }
        var rows: [[String: Any]] = []
        var heldOutSame = 0
        var heldOutSameAccepted = 0
        var heldOutDifferent = 0
        var heldOutDifferentAccepted = 0
        for k in 0..<Self.folds {
            let trainDifferent = different.filter {
                let f = foldOf($0)
                return f.0 != k && f.1 != k
            }.map(\.distance)
            let testSame = same.filter { foldOf($0).0 == k }.map(\.distance)
            let testDifferent = different.filter {
                let f = foldOf($0)
                return f.0 == k || f.1 == k
            }.map(\.distance)
            guard
                let threshold = Verification.threshold(
                    falseMatchRate: Self.targetFalseMatchRate, different: trainDifferent)
            else { continue }
            let acceptedSame = testSame.filter { $0 <= threshold }.count
            let acceptedDifferent = testDifferent.filter { $0 <= threshold }.count
            heldOutSame += testSame.count
            heldOutSameAccepted += acceptedSame
            heldOutDifferent += testDifferent.count
            heldOutDifferentAccepted += acceptedDifferent
            let row: [String: Any] = [
                "fold": k, "threshold": threshold.rounded(toPlaces: 4), "same_pairs": testSame.count,
                "tar": (Double(acceptedSame) / Double(max(testSame.count, 1)) * 100).rounded(toPlaces: 2),
                "different_pairs": testDifferent.count,
                "far": (Double(acceptedDifferent) / Double(max(testDifferent.count, 1)) * 100).rounded(toPlaces: 3),
            ]
            rows.append(row)
            print(
                "identity fold \(k): threshold \(String(format: "%.4f", threshold)) from the other people; held out"
                    + " TAR \(row["tar"] ?? 0) % of \(testSame.count), FAR \(row["far"] ?? 0) % of"
                    + " \(testDifferent.count)")
        }
        let tar = Double(heldOutSameAccepted) / Double(max(heldOutSame, 1)) * 100
        let far = Double(heldOutDifferentAccepted) / Double(max(heldOutDifferent, 1)) * 100
        print(
            "identity cross-validated (\(Self.folds) person-wise folds, target FAR 0.1 %): TAR"
                + " \(String(format: "%.2f", tar)) %, FAR \(String(format: "%.3f", far)) %")
        return [
            "folds": rows, "target_far": Self.targetFalseMatchRate * 100, "tar": tar.rounded(toPlaces: 2),
            "far": far.rounded(toPlaces: 3),
        ]
    }

    /// Percentiles of the chips' sharpness, and the share of described faces each floor would refuse.
    private func sharpnessSummary(_ values: [Double]) -> [String: Any] {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return [:] }
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))] }
        var refused: [String: Double] = [:]
        for floor in [2.0, 3.0, 4.0, 6.0, 8.0] {
            refused[String(format: "%g", floor)] =
                (Double(sorted.filter { $0 < floor }.count) / Double(sorted.count) * 100).rounded(toPlaces: 2)
        }
        print(
            "identity chip sharpness: p1 \(String(format: "%.2f", percentile(0.01))), p5"
                + " \(String(format: "%.2f", percentile(0.05))), median \(String(format: "%.2f", percentile(0.5)));"
                + " refused % by floor \(refused.sorted { $0.key < $1.key })")
        return [
            "p1": percentile(0.01).rounded(toPlaces: 2), "p5": percentile(0.05).rounded(toPlaces: 2),
            "median": percentile(0.5).rounded(toPlaces: 2), "refused_percent_by_floor": refused,
        ]
    }
}
