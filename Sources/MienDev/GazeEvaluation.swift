import Foundation
import Mien

/// Gaze against Pointing'04's labels (the direction of a marker each person looked at), beside head pose
/// alone on the same images, with the shipped model and with leave-one-person-out folds that refit its
/// three constants on the other persons.
struct GazeEvaluation {
    /// One labelled image: labels (degrees, Pointing'04's signs), head pose, and the irises measured.
    struct Sample {
        var person: Int
        var pan: Double
        var tilt: Double
        var pose: HeadPose
        var measurement: GazeEstimator.Measurement?
    }

    let samples: [Sample]

    /// The grids the folds search (half eye widths).
    static let horizontalRadii = stride(from: 0.5, through: 8.0, by: 0.1).map { $0 }
    static let verticalRadii = stride(from: 0.3, through: 1.5, by: 0.01).map { $0 }
    static let restingOffsets = stride(from: -0.2, through: 0.4, by: 0.01).map { $0 }

    func run() -> [String: Any] {
        let measured = samples.filter { $0.measurement != nil }
        let shipped = errors(measured, model: GazeEstimator.Model.pointing04)
        let headYaw = measured.map { abs($0.pose.yaw + $0.pan) }
        let headPitch = measured.map { abs($0.pose.pitch - $0.tilt) }
        let gazes = measured.map { gaze($0, GazeEstimator.Model.pointing04) }
        let mean = Statistics.mean
        var result: [String: Any] = [
            "images": samples.count, "reported": measured.count,
            "reported_share": round3(Double(measured.count) / Double(max(samples.count, 1))),
            "yaw_mae": round3(mean(shipped.yaw)), "pitch_mae": round3(mean(shipped.pitch)),
            "head_yaw_mae": round3(mean(headYaw)), "head_pitch_mae": round3(mean(headPitch)),
            "yaw_slope": round3(Statistics.slope(gazes.map(\.yaw), on: measured.map { -$0.pan })),
            "pitch_slope": round3(Statistics.slope(gazes.map(\.pitch), on: measured.map(\.tilt))),
            "yaw_bias": round3(mean(zip(gazes, measured).map { $0.yaw + $1.pan })),
            "pitch_bias": round3(mean(zip(gazes, measured).map { $0.pitch - $1.tilt })),
        ]
        print(
            "gaze pointing04 (shipped model, fitted on these persons): yaw MAE \(result["yaw_mae"] ?? 0)°, pitch MAE"
                + " \(result["pitch_mae"] ?? 0)° (head pose alone on the same \(measured.count) images: yaw"
                + " \(result["head_yaw_mae"] ?? 0)°, pitch \(result["head_pitch_mae"] ?? 0)°); slopes yaw"
                + " \(result["yaw_slope"] ?? 0), pitch \(result["pitch_slope"] ?? 0); bias yaw \(result["yaw_bias"] ?? 0)°,"
                + " pitch \(result["pitch_bias"] ?? 0)°; reported on \(measured.count) of \(samples.count) images")
        // Leave one person out: fit on the others, measure on the one left out.
        var (foldYaw, foldPitch) = ([Double](), [Double]())
        var folds: [[String: Any]] = []
        for person in Set(measured.map(\.person)).sorted() {
            let training = measured.filter { $0.person != person }
            let held = measured.filter { $0.person == person }
            let model = Self.fit(training)
            let e = errors(held, model: model)
            foldYaw += e.yaw
            foldPitch += e.pitch
            folds.append([
                "person": person, "horizontal_radius": round3(model.horizontalRadius),
                "vertical_radius": round3(model.verticalRadius), "resting_offset": round3(model.restingOffset),
                "yaw_mae": round3(mean(e.yaw)), "pitch_mae": round3(mean(e.pitch)),
            ])
            print(
                "  fold without person \(person): radii \(round3(model.horizontalRadius)) /"
                    + " \(round3(model.verticalRadius)), resting offset \(round3(model.restingOffset)) -> yaw MAE"
                    + " \(round3(mean(e.yaw)))°, pitch MAE \(round3(mean(e.pitch)))° on \(held.count) images")
        }
        let all = Self.fit(measured)
        result["fit_on_all_persons"] = [
            "horizontal_radius": round3(all.horizontalRadius), "vertical_radius": round3(all.verticalRadius),
            "resting_offset": round3(all.restingOffset),
        ]
        print(
            "  fitted on all these persons: radii \(round3(all.horizontalRadius)) / \(round3(all.verticalRadius)),"
                + " resting offset \(round3(all.restingOffset)) (GazeEstimator.Model.pointing04 ships"
                + " \(GazeEstimator.Model.pointing04.horizontalRadius) / \(GazeEstimator.Model.pointing04.verticalRadius) /"
                + " \(GazeEstimator.Model.pointing04.restingOffset))")
        result["cross_validated_yaw_mae"] = round3(mean(foldYaw))
        result["cross_validated_pitch_mae"] = round3(mean(foldPitch))
        result["folds"] = folds
        print(
            "  leave-one-person-out: yaw MAE \(result["cross_validated_yaw_mae"] ?? 0)°, pitch MAE"
                + " \(result["cross_validated_pitch_mae"] ?? 0)°")
        return result
    }

    private func gaze(_ sample: Sample, _ model: GazeEstimator.Model) -> Gaze {
        guard let measurement = sample.measurement else { preconditionFailure("only measured samples") }
        return GazeEstimator(model: model).gaze(from: measurement, pose: sample.pose)
    }

    /// Absolute errors against the labels (Pointing'04's pan > 0 is the person's right).
    private func errors(_ samples: [Sample], model: GazeEstimator.Model) -> (yaw: [Double], pitch: [Double]) {
        let gazes = samples.map { gaze($0, model) }
        return (zip(gazes, samples).map { abs($0.yaw + $1.pan) }, zip(gazes, samples).map { abs($0.pitch - $1.tilt) })
    }

    /// The constants with the least mean absolute error on `samples`: the horizontal radius for yaw, then the
    /// vertical radius and resting offset for pitch (the axes do not share a constant).
    static func fit(_ samples: [Sample]) -> GazeEstimator.Model {
        let evaluation = GazeEvaluation(samples: samples)
        func score(_ model: GazeEstimator.Model) -> (Double, Double) {
            let e = evaluation.errors(samples, model: model)
            return (Statistics.mean(e.yaw), Statistics.mean(e.pitch))
        }
        let base = GazeEstimator.Model.pointing04
        let horizontal =
            horizontalRadii.min {
                score(
                    .init(horizontalRadius: $0, verticalRadius: base.verticalRadius, restingOffset: base.restingOffset)
                ).0
                    < score(
                        .init(
                            horizontalRadius: $1, verticalRadius: base.verticalRadius, restingOffset: base.restingOffset
                        )
                    ).0
            } ?? base.horizontalRadius
        var best = (error: Double.infinity, radius: base.verticalRadius, offset: base.restingOffset)
        for radius in verticalRadii {
            for offset in restingOffsets {
                let error = score(.init(horizontalRadius: horizontal, verticalRadius: radius, restingOffset: offset)).1
                if error < best.error { best = (error, radius, offset) }
            }
        }
        return GazeEstimator.Model(
            horizontalRadius: horizontal, verticalRadius: best.radius, restingOffset: best.offset)
    }
}
