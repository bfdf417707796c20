import Foundation
import Mien
import MienTesting

/// `lookingAtCamera` against labels: Pointing'04 (each picture says where the person looked; the camera is its
/// (0°, 0°) target) and yalefaces (every subject faces the camera and looks into it), beside Affdex's
/// `attention` (head and eyes toward the camera's axis, 10° to 45°) on the same faces.
///
/// Read as users read pictures (`PictureReader`, `--metrics gaze`). Pointing'04's persons 1-8 are the ones
/// the gaze model's three constants were fitted on, so its figures are optimistic for the gaze; yalefaces is
/// not part of any fit.
struct LookingAtCameraEvaluation {
    let sets: EvalSets
    let models: ModelStore

    func run() throws -> [String: Any] {
        let reader = try PictureReader(groups: [.gaze, .expressions], features: false, models: models)
        var result: [String: Any] = [:]
        if let folder = sets.folder("pointing04_headpose") {
            result["pointing04"] = try pointing04(folder, reader)
        }
        if let root = sets.folder("yalefaces")?.deletingLastPathComponent() {
            result["yalefaces"] = try yalefaces(root, reader)
        }
        return result
    }

    /// ROC-AUC of looking at the camera (pan = tilt = 0) against looking 30° or more away from it; targets
    /// 15° away are left out (between the two); pictures whose gaze is not measured are counted apart.
    private func pointing04(_ folder: URL, _ reader: PictureReader) throws -> [String: Any] {
        var scores = ExpressionEvaluation.TaskScores()
        var attention = ExpressionEvaluation.TaskScores()
        var unmeasuredByAngle: [String: Int] = [:]
        for label in try LabelledPose.pointing04(folder) {
            let away = max(abs(label.pan), abs(label.tilt))
            guard away == 0 || away >= 30 else { continue }
            let face = label.face(in: try reader.read(label.imagePath))
            let atCamera = away == 0
            guard let face, let score = face.measures["lookingAtCamera"] else {
                unmeasuredByAngle[atCamera ? "at_camera" : "away", default: 0] += 1
                continue
            }
            scores.add(score, positive: atCamera)
            attention.add(face.expressions?[.attention], positive: atCamera)
        }
        // At the score users would threshold (50, the 15° boundary): the share of each kind read as looking.
        let (truePositive, falsePositive) = scores.rates(atLeast: 50)
        print(
            "lookingAtCamera pointing04: ROC-AUC \(round3(scores.auc)) (\(scores.positives.count) at the camera,"
                + " \(scores.negatives.count) 30° or more away); score >= 50 on \(round3(truePositive * 100)) % of"
                + " those at the camera and \(round3(falsePositive * 100)) % of those away; gaze not measured:"
                + " \(unmeasuredByAngle); Affdex's attention on the same faces: ROC-AUC \(round3(attention.auc))")
        let (attentionTrue, attentionFalse) = attention.rates(atLeast: 50)
        print(
            "lookingAtCamera pointing04: attention >= 50 on \(round3(attentionTrue * 100)) % of those at the camera and"
                + " \(round3(attentionFalse * 100)) % of those away; lookingAtCamera's scores at the camera:"
                + " \(scores.positives.map { Int($0.rounded()) })")
        return [
            "attention_auc": round3(attention.auc), "attention_true_positive_rate_at_50": round3(attentionTrue),
            "attention_false_positive_rate_at_50": round3(attentionFalse),
            "auc": round3(scores.auc), "counts": Array(scores.counts.prefix(2)),
            "true_positive_rate_at_50": round3(truePositive), "false_positive_rate_at_50": round3(falsePositive),
            "unmeasured": unmeasuredByAngle,
        ]
    }

    /// The share of yalefaces' open-eyed faces (every condition but sleepy and wink) scored 50 or more.
    private func yalefaces(_ root: URL, _ reader: PictureReader) throws -> [String: Any] {
        var looking = 0
        var attentive = 0
        var measured = 0
        var unmeasured = 0
        for image in try LabelledExpression.yalefaces(root) where !["sleepy", "wink"].contains(image.label) {
            let face = try reader.largestFace(image.imagePath)
            guard let score = face?.measures["lookingAtCamera"] else {
                unmeasured += 1
                continue
            }
            measured += 1
            if score >= 50 { looking += 1 }
            if (face?.expressions?[.attention] ?? 0) >= 50 { attentive += 1 }
        }
        let share = Double(looking) / Double(max(measured, 1))
        let attentionShare = Double(attentive) / Double(max(measured, 1))
        print(
            "lookingAtCamera yalefaces (every subject looks into the camera): \(round3(share * 100)) % of"
                + " \(measured) faces scored >= 50 (attention: \(round3(attentionShare * 100)) %); gaze not measured on"
                + " \(unmeasured)")
        return [
            "share_at_50": round3(share), "attention_share_at_50": round3(attentionShare), "faces": measured,
            "unmeasured": unmeasured,
        ]
    }
}
