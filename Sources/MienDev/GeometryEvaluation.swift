import Foundation
import Mien
import MienTesting

/// Landmark error on 300-W helen and head-pose error on Pointing'04.
struct GeometryEvaluation {
    let root: URL
    let models: ModelStore

    func run() throws -> [String: Any] {
        let analyzer = try FaceAnalyzer(
            mode: .discreteImages, detection: DetectionOptions(faceMode: .small, maximumFaces: 10), models: models)
        var result: [String: Any] = [:]

        // Landmarks: NME over the 68 points, normalised by the outer-eye-corner distance.
        var errors: [Double] = []
        var missed = 0
        for face in try LabelledLandmarks.helen(root.appendingPathComponent("ibug300w_helen_test")) {
            let analysis = try analyzer.analyze(ImageDecoder.decode(file: face.imagePath))
            let center = Point(
                x: face.points.map(\.x).reduce(0, +) / 68, y: face.points.map(\.y).reduce(0, +) / 68)
            guard let found = analysis.faces.first(where: { $0.bounds.contains(center) }) else {
                missed += 1
                continue
            }
            let predicted = FaceLandmark.ibug68.map { found.mesh.points[$0].xy }
            let total = zip(predicted, face.points).reduce(0) { $0 + $1.0.distance(to: $1.1) }
            errors.append(total / 68 / face.interocularDistance)
        }
        let nme = errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count)
        result["helen_faces"] = errors.count + missed
        result["helen_missed"] = missed
        result["helen_nme"] = round3(nme)
        result["helen_nme_median"] = round3(Statistics.median(errors))
        result["helen_failures_over_10_percent"] = errors.filter { $0 > 0.1 }.count
        print(
            "landmarks helen: NME \(round3(nme * 100)) % (median \(round3(Statistics.median(errors) * 100)) %),"
                + " \(errors.count) faces, \(missed) not found, \(errors.filter { $0 > 0.1 }.count) over 10 %")

        // Head pose on Pointing'04 within |pan|, |tilt| <= 60 degrees.
        var yawErrors: [Double] = []
        var pitchErrors: [Double] = []
        var yawSigned: [Double] = []
        var pitchSigned: [Double] = []
        var poseMissed = 0
        for label in try LabelledPose.pointing04(root.appendingPathComponent("pointing04_headpose"))
        where abs(label.pan) <= 60 && abs(label.tilt) <= 60 {
            let analysis = try analyzer.analyze(ImageDecoder.decode(file: label.imagePath))
            guard
                let face = analysis.faces.min(by: {
                    $0.bounds.center.distance(to: label.faceCenter) < $1.bounds.center.distance(to: label.faceCenter)
                }), let pose = face.pose, face.bounds.center.distance(to: label.faceCenter) < face.bounds.width
            else {
                poseMissed += 1
                continue
            }
            // Pointing'04 pan > 0 is the person's right; Mien's yaw > 0 is the person's left.
            yawSigned.append(pose.yaw - -label.pan)
            pitchSigned.append(pose.pitch - label.tilt)
            yawErrors.append(abs(pose.yaw + label.pan))
            pitchErrors.append(abs(pose.pitch - label.tilt))
        }
        func mean(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.reduce(0, +) / Double(v.count) }
        result["pose_images"] = yawErrors.count + poseMissed
        result["pose_missed"] = poseMissed
        result["yaw_mae"] = round3(mean(yawErrors))
        result["pitch_mae"] = round3(mean(pitchErrors))
        result["yaw_bias"] = round3(mean(yawSigned))
        result["pitch_bias"] = round3(mean(pitchSigned))
        print(
            "head pose pointing04 (|pan|,|tilt| <= 60): yaw MAE \(round3(mean(yawErrors)))°,"
                + " pitch MAE \(round3(mean(pitchErrors)))° (bias yaw \(round3(mean(yawSigned)))°,"
                + " pitch \(round3(mean(pitchSigned)))°), \(yawErrors.count) images, \(poseMissed) without a face")
        return result
    }
}
