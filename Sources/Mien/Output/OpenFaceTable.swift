import Foundation

/// `DetectorResult`s as OpenFace 2.2's CSV (`FeatureExtraction`'s columns), so the scripts people have for
/// OpenFace, and py-feat's `read_openface` and its `Fex` accessors (`aus`, `poses`, `gazes`, `landmarks`), read
/// Mien's results unchanged: one row per face per processed frame, every column py-feat 2.0.3 reads, in
/// OpenFace's order.
///
/// Columns: `frame` (from 1, as OpenFace counts), `face_id`, `timestamp` (seconds), `confidence` (0...1),
/// `success` (1); `gaze_0_*` / `gaze_1_*`, each eye's gaze as a unit vector in OpenFace's camera axes (eye 0 the
/// one on the image's left, the person's right eye; from `Gaze.right` / `Gaze.left`: (tan yaw, tan -pitch, -1)
/// normalised), `gaze_angle_x` / `gaze_angle_y` (radians); `pose_Tx` / `pose_Ty` / `pose_Tz`, the head's position
/// in millimetres (see below), `pose_Rx` / `pose_Ry` / `pose_Rz` (radians); `x_0 ... x_67`, `y_0 ... y_67` (the 68
/// points in frame pixels, with `DetectorOptions.landmarks`); `X_0 ... Z_67` (the same points in millimetres,
/// camera axes); OpenFace's shape parameters `p_*` (empty: Mien's mesh has no such model); then each action
/// unit's intensity `AUxx_r` (OpenFace's 0...5: the catalog's score / 20) and presence `AUxx_c` (1 when the score
/// is at least 50, Affdex's threshold for a smile or a closed eye, else 0), from the catalog's entry whose
/// `actionUnit` it is; a unit without one has its columns, empty. Cells of metrics not asked for are empty, never 0.
///
/// **Millimetres, with OpenFace's camera.** Without calibration OpenFace assumes fx = fy = 500 x width / 640 and
/// the principal point at the frame's centre; so does Mien. The head's distance `pose_Tz` = fx x 88.9 mm x cos(yaw)
/// / the outer eye corners' distance in pixels (88.9 mm: those corners on MediaPipe's canonical face, an adult's
/// average); `pose_Tx` / `pose_Ty` put the face box's centre at that distance. Each point's depth is `pose_Tz`
/// plus the mesh's relative depth at its nearest vertex, scaled to millimetres at that distance. Like OpenFace's
/// own, these are estimates from one camera: right in proportion, off in scale by the person's eye spacing and the
/// real lens.
///
/// Signs follow OpenFace's camera axes (x right, y down, z away from the camera), checked on OpenFace's own
/// output in py-feat's test data (`pyfeat_test_data/OpenFace_Test.csv`: the nose toward the image's right goes
/// with `pose_Ry` < 0, correlation -0.996; the eye line's slope with `pose_Rz`, same sign and size):
/// `pose_Rx` = -pitch, `pose_Ry` = -yaw, `pose_Rz` = roll, `gaze_angle_x` = gaze yaw, `gaze_angle_y` = -gaze
/// pitch, all in radians. OpenFace's AU45 (blink) is Mien's `eyeClosure` (FACS 43, eyes closed): per frame both
/// are how closed the eyes are. Left out: the eye-region landmarks (`eye_lmk_*`), which py-feat does not read.
package enum OpenFaceTable {
    /// OpenFace's intensity units (`AUxx_r`), in OpenFace's order.
    package static let intensityUnits = [1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 20, 23, 25, 26, 45]
    /// OpenFace's presence units (`AUxx_c`), in OpenFace's order.
    package static let presenceUnits = [1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 20, 23, 25, 26, 28, 45]
    /// A unit counts as present from this score (0...100) on.
    package static let presenceThreshold = 50.0
    /// The outer eye corners' distance on MediaPipe's canonical face (vertices 33 and 263), millimetres.
    package static let outerEyeCornersMillimetres = 88.9
    /// OpenFace's shape parameters: left empty.
    static let shapeParameters = ["p_scale", "p_rx", "p_ry", "p_rz", "p_tx", "p_ty"] + (0..<34).map { "p_\($0)" }

    /// The catalog entry that gives OpenFace's unit `number` (`eyeClosure` for AU45).
    package static func entry(forUnit number: Int) -> MetricDescriptor? {
        if number == 45 { return MetricCatalog.entry(named: "expressions.eyeClosure") }
        return MetricCatalog.entries.first { $0.actionUnit == "AU\(number)" }
    }

    private static func unitName(_ number: Int) -> String { number < 10 ? "AU0\(number)" : "AU\(number)" }

    /// Every column, in order.
    package static let header: [String] =
        ["frame", "face_id", "timestamp", "confidence", "success"]
        + ["gaze_0_x", "gaze_0_y", "gaze_0_z", "gaze_1_x", "gaze_1_y", "gaze_1_z", "gaze_angle_x", "gaze_angle_y"]
        + ["pose_Tx", "pose_Ty", "pose_Tz", "pose_Rx", "pose_Ry", "pose_Rz"]
        + ["x", "y", "X", "Y", "Z"].flatMap { axis in (0..<68).map { "\(axis)_\($0)" } } + shapeParameters
        + intensityUnits.map { unitName($0) + "_r" } + presenceUnits.map { unitName($0) + "_c" }

    /// The header as OpenFace writes it: names separated by a comma and a space.
    package static var headerLine: String { header.joined(separator: ", ") }

    private static let intensityScores = intensityUnits.map { entry(forUnit: $0)?.score }
    private static let presenceScores = presenceUnits.map { entry(forUnit: $0)?.score }

    /// One CSV line per face of `result` (none for an unprocessed frame or a frame without faces).
    package static func lines(for result: DetectorResult) -> [String] {
        guard let faces = result.faces else { return [] }
        return faces.keys.sorted().compactMap { id in faces[id].map { line(face: $0, result: result) } }
    }

    private static func line(face: FaceResult, result: DetectorResult) -> String {
        let number = ResultTable.number
        func radians(_ degrees: Double?) -> String { number(degrees.map { $0 * .pi / 180 }, 4) }
        var cells = [
            String(result.frameIndex + 1), String(face.faceId), number(result.timestamp, 3),
            number(face.confidence, 3), "1",
        ]
        for eye in [face.gaze?.right, face.gaze?.left] {
            let vector = eye.map { Self.vector(yaw: $0.yaw, pitch: $0.pitch) }
            cells += [vector?.x, vector?.y, vector?.z].map { number($0, 4) }
        }
        cells += [radians(face.gaze?.yaw), radians(face.gaze?.pitch.negated)]
        let camera = OpenFaceCamera(result: result)
        let position = camera.flatMap { $0.head(of: face) }
        cells += [position?.x, position?.y, position?.z].map { number($0, 1) }
        cells += [
            radians(face.orientation?.pitch.negated), radians(face.orientation?.yaw.negated),
            radians(face.orientation?.roll),
        ]
        let points = face.points68.flatMap { $0.count == 68 ? $0 : nil }
        cells += (0..<68).map { number(points?[$0].x, 3) } + (0..<68).map { number(points?[$0].y, 3) }
        let solid = camera.flatMap { camera in position.flatMap { camera.points(of: face, at: $0.z) } }
        cells += [\Point3D.x, \.y, \.z].flatMap { axis in (0..<68).map { number(solid?[$0][keyPath: axis], 1) } }
        cells += shapeParameters.map { _ in "" }
        cells += intensityScores.map { score in number(score?(face).map { $0 / 20 }, 2) }
        cells += presenceScores.map { score in
            score?(face).map { $0 >= presenceThreshold ? "1" : "0" } ?? ""
        }
        return cells.joined(separator: ",")
    }

    /// A gaze direction (degrees, head pose's signs) as OpenFace's unit vector: x right, y down, z away from the
    /// camera, so a look straight into the camera is (0, 0, -1).
    static func vector(yaw: Double, pitch: Double) -> Point3D {
        let x = tan(yaw * .pi / 180)
        let y = tan(-pitch * .pi / 180)
        let length = (x * x + y * y + 1).squareRoot()
        return Point3D(x: x / length, y: y / length, z: -1 / length)
    }
}

/// OpenFace's camera when none is given (`FeatureExtraction` without `-fx -fy -cx -cy`): fx = fy = 500 x
/// width / 640, the principal point at the frame's centre.
struct OpenFaceCamera {
    let focal: Double
    let centre: (x: Double, y: Double)

    init?(result: DetectorResult) {
        guard let width = result.width, let height = result.height, width > 0, height > 0 else { return nil }
        focal = 500 * Double(width) / 640
        centre = (Double(width) / 2, Double(height) / 2)
    }

    /// The face box's centre at the distance its eye corners give, millimetres; nil without a head pose.
    func head(of face: FaceResult) -> Point3D? {
        guard let pose = face.orientation, pose.interocularDistance > 1 else { return nil }
        let yaw = min(abs(pose.yaw), 75) * .pi / 180
        let z = focal * OpenFaceTable.outerEyeCornersMillimetres * cos(yaw) / pose.interocularDistance
        let box = face.faceBounds
        let u = box.x + box.width / 2
        let v = box.y + box.height / 2
        return Point3D(x: (u - centre.x) * z / focal, y: (v - centre.y) * z / focal, z: z)
    }

    /// The 68 points in millimetres: each at the head's distance plus the mesh's relative depth at its nearest
    /// vertex (pixels, scaled to millimetres there); nil without the points and the mesh.
    func points(of face: FaceResult, at distance: Double) -> [Point3D]? {
        guard let points = face.points68, points.count == 68, let mesh = face.mesh, !mesh.isEmpty else { return nil }
        let surface = mesh.prefix(FaceLandmark.meshPointCount)
        let millimetresPerPixel = distance / focal
        return points.map { point in
            let nearest = surface.min { a, b in
                (a.x - point.x) * (a.x - point.x) + (a.y - point.y) * (a.y - point.y)
                    < (b.x - point.x) * (b.x - point.x) + (b.y - point.y) * (b.y - point.y)
            }
            let z = distance + (nearest?.z ?? 0) * millimetresPerPixel
            return Point3D(x: (point.x - centre.x) * z / focal, y: (point.y - centre.y) * z / focal, z: z)
        }
    }
}

extension Double {
    fileprivate var negated: Double { -self }
}
