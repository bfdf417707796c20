import Foundation
import Mien
import MienStatistics
import MienTesting

/// Landmark error on 300-W helen and head-pose error on Pointing'04.
struct GeometryEvaluation {
    let sets: EvalSets
    let models: ModelStore

    func run() throws -> [String: Any] {
        // `mien analyze --face-mode small --max-faces 10 --metrics none --landmarks`: pose and points as users get them.
        let analyzer = try PictureReader(
            options: DetectorOptions(
                detection: DetectionOptions(faceMode: .small, maximumFaces: 10), metrics: [], landmarks: true),
            models: models)
        var result: [String: Any] = [:]

        // Landmarks: NME over the 68 points, normalised by the outer-eye-corner distance. helen is the
        // target set; dlib's labelled example faces (small faces in crowds) show whether it generalises.
        if let helen = sets.folder("ibug300w_helen_test") {
            result.merge(try landmarkError("helen", LabelledLandmarks.helen(helen), analyzer)) { $1 }
        }
        if let dlib = sets.folder("dlib_examples_faces") {
            let faces =
                try LabelledLandmarks.dlibXML(dlib.appendingPathComponent("training_with_face_landmarks.xml"))
                + LabelledLandmarks.dlibXML(dlib.appendingPathComponent("testing_with_face_landmarks.xml"))
            result.merge(try landmarkError("dlib", faces, analyzer)) { $1 }
        }
        if let pointing = sets.folder("pointing04_headpose") {
            result.merge(try headPose(pointing, analyzer)) { $1 }
        }
        if let video = sets.videos(in: "videos_talking_heads").first {
            result["jitter"] = try jitter(video)
        }
        return result
    }

    /// Head pose on Pointing'04 within |pan|, |tilt| <= 60 degrees, against the labels.
    private func headPose(_ folder: URL, _ analyzer: PictureReader) throws -> [String: Any] {
        var result: [String: Any] = [:]

        // Head pose on Pointing'04 within |pan|, |tilt| <= 60 degrees.
        var poseMissed = 0
        // Label and estimate per image.
        var (pans, tilts, yaws, pitches, irisDrops) = ([Double](), [Double](), [Double](), [Double](), [Double]())
        var eyes: [GazeEvaluation.Sample] = []
        let gazeEstimator = GazeEstimator()
        for label in try LabelledPose.pointing04(folder)
        where abs(label.pan) <= 60 && abs(label.tilt) <= 60 {
            guard let face = label.face(in: try analyzer.read(label.imagePath)), let pose = face.orientation,
                let points = face.mesh
            else {
                poseMissed += 1
                continue
            }
            pans.append(label.pan)
            tilts.append(label.tilt)
            yaws.append(pose.yaw)
            pitches.append(pose.pitch)
            // The gaze estimator reads the mesh's points only; the region is the face's box.
            let mesh = FaceMesh(
                points: points, presence: face.confidence,
                region: FaceRegion(center: face.faceBounds.center, size: face.faceBounds.width, rotation: 0))
            irisDrops.append(Self.irisDrop(mesh))
            eyes.append(
                GazeEvaluation.Sample(
                    person: label.person, pan: label.pan, tilt: label.tilt, pose: pose,
                    measurement: gazeEstimator.measure(mesh: mesh, pose: pose)))
        }
        // Pointing'04 pan > 0 is the person's right; Mien's yaw > 0 is the person's left.
        let yawSigned = zip(yaws, pans).map { $0 + $1 }
        let pitchSigned = zip(pitches, tilts).map { $0 - $1 }
        let (yawErrors, pitchErrors) = (yawSigned.map(abs), pitchSigned.map(abs))
        let mean = Statistics.mean
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
        // Pointing'04's labels are the direction of a marker the person looked at, partly with the eyes:
        // the slopes say how much of it the head did, and if the part left over (label - head pitch)
        // follows where the irises sit in the eyes, the eyes did it.
        let residuals = pitchSigned.map { -$0 }
        let gaze: [String: Any] = [
            "yaw_slope": round3(Statistics.slope(yaws, on: pans.map { -$0 })),
            "pitch_slope": round3(Statistics.slope(pitches, on: tilts)),
            // The study's one Pearson definition (`Descriptive`): null when a side is constant, never a fake 0.
            "pitch_residual_iris_correlation": Descriptive.pearson(Array(zip(residuals, irisDrops))).map(round3)
                as Any? ?? NSNull(),
        ]
        result["pose_label_vs_head"] = gaze
        print(
            "  head pose against the label: yaw slope \(gaze["yaw_slope"] ?? 0), pitch slope"
                + " \(gaze["pitch_slope"] ?? 0); correlation of (tilt label - head pitch) with the irises' height in"
                + " the eyes \(gaze["pitch_residual_iris_correlation"] ?? 0) (negative: the eyes looked up where the"
                + " head did not)")
        result["gaze"] = GazeEvaluation(samples: eyes).run()
        return result
    }

    /// A picture's faces in ID order (the order the stages found them).
    private static func inIdOrder(_ result: DetectorResult) -> [FaceResult] {
        (result.faces ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    }

    /// How far below the eye corners' midpoint the iris centres sit, in eye widths, averaged over both
    /// eyes (the irises rise when a person looks up without raising the head).
    private static func irisDrop(_ mesh: FaceMesh) -> Double {
        let eyes = [
            (FaceLandmark.rightIrisCenter, FaceLandmark.rightEyeOuterCorner, FaceLandmark.rightEyeInnerCorner),
            (FaceLandmark.leftIrisCenter, FaceLandmark.leftEyeInnerCorner, FaceLandmark.leftEyeOuterCorner),
        ]
        let drops = eyes.map { iris, first, second in
            let (a, b, c) = (mesh.points[first].xy, mesh.points[second].xy, mesh.points[iris].xy)
            let width = max(a.distance(to: b), 1e-6)
            // The unit normal of the corner line that points down the image (image x right, y down).
            let normal = Point(x: -(b.y - a.y) / width, y: (b.x - a.x) / width)
            return ((c.x - (a.x + b.x) / 2) * normal.x + (c.y - (a.y + b.y) / 2) * normal.y) / width
        }
        return drops.reduce(0, +) / Double(drops.count)
    }

    /// NME of `Ibug68Points` on `faces` (the face found whose box holds the labelled points' centre).
    private func landmarkError(_ name: String, _ faces: [LabelledLandmarks], _ analyzer: PictureReader) throws
        -> [String: Any]
    {
        var errors: [Double] = []
        var missed = 0
        var analysed: (path: String, faces: [FaceResult])?
        for face in faces {
            // dlib's files label several faces per image: analyse each image once.
            if analysed?.path != face.imagePath {
                analysed = (face.imagePath, Self.inIdOrder(try analyzer.read(face.imagePath)))
            }
            guard let found = analysed?.faces.first(where: { $0.faceBounds.contains(face.center) }),
                let points = found.points68
            else {
                missed += 1
                continue
            }
            errors.append(face.normalisedMeanError(of: points))
        }
        let nme = errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count)
        print(
            "landmarks \(name): NME \(round3(nme * 100)) % (median \(round3(Statistics.median(errors) * 100)) %),"
                + " \(errors.count) faces, \(missed) not found, \(errors.filter { $0 > 0.1 }.count) over 10 %")
        return [
            "\(name)_faces": errors.count + missed, "\(name)_missed": missed, "\(name)_nme": round3(nme),
            "\(name)_nme_median": round3(Statistics.median(errors)),
            "\(name)_failures_over_10_percent": errors.filter { $0 > 0.1 }.count,
        ]
    }

    /// Frame-to-frame jitter on the talking head: the mean size of the second difference (acceleration)
    /// of stable points (nose root, nose tip, inner eye corners), in interocular distances, with the
    /// One-Euro smoothing on and off.
    ///
    /// Real motion has small acceleration; jitter has a large one.
    /// Lag is shown by the mean distance between smoothed and raw points.
    private func jitter(_ path: String) throws -> [String: Any] {
        let stable = [168, FaceLandmark.noseTip, FaceLandmark.rightEyeInnerCorner, FaceLandmark.leftEyeInnerCorner]
        var tracks: [String: [[Point3D]]] = [:]
        var interocular = 0.0
        for (label, smoothing) in [("raw", nil), ("smoothed", OneEuroFilter.Parameters.mediaPipeFaceLandmarks)] {
            // FaceAnalyzer, not a Detector: this switches the mesh smoothing off and on (a tracking option a Detector does not expose).
            let analyzer = try FaceAnalyzer(
                mode: .video, tracking: TrackingOptions(smoothing: smoothing), models: models)
            let source = try VideoFileSource(path: path)
            var points: [[Point3D]] = []
            while let frame = try source.nextFrame() {
                guard let face = try analyzer.analyze(frame).faces.first else { continue }
                points.append(stable.map { face.mesh.points[$0] })
                interocular = face.pose?.interocularDistance ?? interocular
            }
            tracks[label] = points
        }
        func acceleration(_ points: [[Point3D]]) -> Double {
            guard points.count > 2 else { return 0 }
            var total = 0.0
            var count = 0
            for t in 1..<(points.count - 1) {
                for k in points[t].indices {
                    let a = points[t + 1][k] - 2.0 * points[t][k] + points[t - 1][k]
                    total += (a.x * a.x + a.y * a.y).squareRoot()
                    count += 1
                }
            }
            return total / Double(max(count, 1)) / max(interocular, 1)
        }
        let raw = tracks["raw"] ?? []
        let smoothed = tracks["smoothed"] ?? []
        var lag = 0.0
        for (r, s) in zip(raw, smoothed) { for k in r.indices { lag += (r[k] - s[k]).xy.distance(to: .zero) } }
        lag /= Double(max(min(raw.count, smoothed.count) * stable.count, 1)) * max(interocular, 1)
        let row: [String: Any] = [
            "raw_acceleration_iod": round3(acceleration(raw) * 1000) / 1000,
            "smoothed_acceleration_iod": round3(acceleration(smoothed) * 1000) / 1000,
            "smoothed_minus_raw_iod": round3(lag * 1000) / 1000, "frames": raw.count,
        ]
        print(
            "jitter talking head (\(raw.count) frames): frame-to-frame acceleration of stable points"
                + " \(round3(acceleration(raw) * 100)) % of interocular raw, \(round3(acceleration(smoothed) * 100)) %"
                + " smoothed; smoothed points sit \(round3(lag * 100)) % of interocular from raw")
        return row
    }
}
