import Foundation

/// `DetectorResult`s as OpenFace 2.2's CSV (`FeatureExtraction`'s columns), so the scripts people have for
/// OpenFace, and py-feat's `read_openface`, read Mien's results unchanged: one row per face per processed frame.
///
/// Columns, in OpenFace's order, for what Mien measures: `frame` (from 1, as OpenFace counts), `face_id`,
/// `timestamp` (seconds), `confidence` (0...1), `success` (1), `gaze_angle_x` / `gaze_angle_y` (radians),
/// `pose_Rx` / `pose_Ry` / `pose_Rz` (radians), `x_0 ... x_67`, `y_0 ... y_67` (the 68 points in frame pixels,
/// with `DetectorOptions.landmarks`), then each action unit's intensity `AUxx_r` (OpenFace's 0...5: the
/// catalog's score / 20) and presence `AUxx_c` (1 when the score is at least 50, Affdex's threshold for a smile
/// or a closed eye, else 0). Cells of metrics not asked for are empty, never 0.
///
/// Signs follow OpenFace's camera axes (x right, y down, z away from the camera), checked on OpenFace's own
/// output in py-feat's test data (`pyfeat_test_data/OpenFace_Test.csv`: the nose toward the image's right goes
/// with `pose_Ry` < 0, correlation -0.996; the eye line's slope with `pose_Rz`, same sign and size):
/// `pose_Rx` = -pitch, `pose_Ry` = -yaw, `pose_Rz` = roll, `gaze_angle_x` = gaze yaw, `gaze_angle_y` = -gaze
/// pitch, all in radians.
///
/// Left out, because Mien does not measure them: AU23 (lip tightener), the gaze vectors (`gaze_0_x` ...), eye
/// landmarks, the head's translation (`pose_T*`, millimetres), the 3D points (`X_*`) and the shape model's
/// parameters (`p_*`). OpenFace's AU45 (blink) is Mien's `eyeClosure` (FACS 43, eyes closed): per frame both
/// are how closed the eyes are.
package enum OpenFaceTable {
    /// OpenFace's intensity units (`AUxx_r`) that Mien measures, in OpenFace's order.
    public static let intensityUnits = [1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 20, 25, 26, 45]
    /// OpenFace's presence units (`AUxx_c`) that Mien measures, in OpenFace's order.
    public static let presenceUnits = [1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 20, 25, 26, 28, 45]
    /// A unit counts as present from this score (0...100) on.
    public static let presenceThreshold = 50.0

    /// The catalog entry that gives OpenFace's unit `number` (`eyeClosure` for AU45).
    public static func entry(forUnit number: Int) -> MetricDescriptor? {
        if number == 45 { return MetricCatalog.entry(named: "expressions.eyeClosure") }
        return MetricCatalog.entries.first { $0.actionUnit == "AU\(number)" }
    }

    private static func unitName(_ number: Int) -> String { number < 10 ? "AU0\(number)" : "AU\(number)" }

    /// Every column, in order.
    public static let header: [String] =
        ["frame", "face_id", "timestamp", "confidence", "success", "gaze_angle_x", "gaze_angle_y"]
        + ["pose_Rx", "pose_Ry", "pose_Rz"] + (0..<68).map { "x_\($0)" } + (0..<68).map { "y_\($0)" }
        + intensityUnits.map { unitName($0) + "_r" } + presenceUnits.map { unitName($0) + "_c" }

    /// The header as OpenFace writes it: names separated by a comma and a space.
    public static var headerLine: String { header.joined(separator: ", ") }

    private static let intensityScores = intensityUnits.map { entry(forUnit: $0)?.score }
    private static let presenceScores = presenceUnits.map { entry(forUnit: $0)?.score }

    /// One CSV line per face of `result` (none for an unprocessed frame or a frame without faces).
    public static func lines(for result: DetectorResult) -> [String] {
        guard let faces = result.faces else { return [] }
        return faces.keys.sorted().compactMap { id in faces[id].map { line(face: $0, result: result) } }
    }

    private static func line(face: FaceResult, result: DetectorResult) -> String {
        let number = ResultTable.number
        func radians(_ degrees: Double?) -> String { number(degrees.map { $0 * .pi / 180 }, 4) }
        var cells = [
            String(result.frameIndex + 1), String(face.faceId), number(result.timestamp, 3),
            number(face.confidence, 3), "1", radians(face.gaze?.yaw), radians(face.gaze?.pitch.negated),
            radians(face.orientation?.pitch.negated), radians(face.orientation?.yaw.negated),
            radians(face.orientation?.roll),
        ]
        let points = face.points68.flatMap { $0.count == 68 ? $0 : nil }
        cells += (0..<68).map { number(points?[$0].x, 3) } + (0..<68).map { number(points?[$0].y, 3) }
        cells += intensityScores.map { score in number(score?(face).map { $0 / 20 }, 2) }
        cells += presenceScores.map { score in
            score?(face).map { $0 >= presenceThreshold ? "1" : "0" } ?? ""
        }
        return cells.joined(separator: ",")
    }
}

extension Double {
    fileprivate var negated: Double { -self }
}
