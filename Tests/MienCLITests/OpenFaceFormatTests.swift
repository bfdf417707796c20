import Foundation
import Mien
import MienTesting
import Testing

/// `mien analyze --format openface`: OpenFace 2.2's CSV, with OpenFace's column names and units, read the way
/// py-feat's `read_openface` reads it (comma-separated, names stripped of OpenFace's leading spaces).
@Suite("OpenFace's CSV")
struct OpenFaceFormatTests {
    /// The rows of a CSV as OpenFace readers see them: column name (stripped) to cell.
    private func rows(_ path: String) throws -> (header: [String], rows: [[String: String]]) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let header = try #require(lines.first).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let rows = lines.dropFirst().map { line in
            Dictionary(
                uniqueKeysWithValues: zip(
                    header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        }
        return (header, rows)
    }

    @Test func theSample_smilesInAU12_notAU10_inOpenFacesColumnsAndUnits() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-openface-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runMien([
            "analyze", "--format", "openface,csv", "--output", folder.path, SampleMedia.astronautPath,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let (header, rows) = try rows(folder.appendingPathComponent("astronaut.jpg.openface.csv").path)
        #expect(header == OpenFaceTable.header)
        #expect(Array(header.prefix(5)) == ["frame", "face_id", "timestamp", "confidence", "success"])
        #expect(header.contains("AU12_r") && header.contains("AU45_c") && header.contains("y_67"))
        let row = try #require(rows.first)
        // Every column py-feat reads is there; what Mien does not measure is empty (AU23 is filled from the
        // catalog's entry for it, when there is one).
        #expect(header.contains("AU23_r") && header.contains("p_33") && header.contains("Z_67"))
        #expect((row["AU23_r"] == "") == (OpenFaceTable.entry(forUnit: 23) == nil) && row["p_scale"] == "")
        // The head about half a metre from OpenFace's default camera, the gaze vectors unit length toward it.
        let distance = try #require(row["pose_Tz"].flatMap(Double.init))
        #expect(distance > 150 && distance < 1500, "pose_Tz in millimetres: \(distance)")
        let gaze = try ["gaze_0_x", "gaze_0_y", "gaze_0_z"].map { try #require(row[$0].flatMap(Double.init)) }
        #expect(abs(gaze.map { $0 * $0 }.reduce(0, +).squareRoot() - 1) < 0.002 && gaze[2] < 0)
        #expect(rows.count == 1 && row["frame"] == "1" && row["face_id"] == "0" && row["success"] == "1")
        let smile = try #require(row["AU12_r"].flatMap(Double.init))
        let upperLip = try #require(row["AU10_r"].flatMap(Double.init))
        #expect(smile >= 4 && smile <= 5, "AU12 (smile) high on OpenFace's 0...5: \(smile)")
        #expect(upperLip <= 1, "AU10 (upper lip raiser) low: \(upperLip)")
        #expect(row["AU12_c"] == "1" && row["AU10_c"] == "0")
        // The same face as the CSV: intensity = score / 20, pose in radians with OpenFace's signs.
        let (_, csv) = try self.rows(folder.appendingPathComponent("astronaut.jpg.csv").path)
        let face = try #require(csv.first)
        let score = try #require(face["smile"].flatMap(Double.init))
        #expect(abs(smile - score / 20) < 0.01)
        let yaw = try #require(face["yaw"].flatMap(Double.init))
        let ry = try #require(row["pose_Ry"].flatMap(Double.init))
        #expect(abs(ry + yaw * .pi / 180) < 0.001, "pose_Ry = -yaw in radians")
        let x0 = try #require(row["x_0"].flatMap(Double.init))
        #expect(x0 > 100 && x0 < 400, "the 68 points are in frame pixels: x_0 = \(x0)")
    }

    @Test func metricsNotAskedFor_leaveTheirCellsEmpty() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-openface-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runMien([
            "analyze", "--format", "openface", "--metrics", "emotions", "--output", folder.path,
            SampleMedia.astronautPath,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(try rows(folder.appendingPathComponent("astronaut.jpg.openface.csv").path).rows.first)
        #expect(row["AU12_r"] == "" && row["AU12_c"] == "", "absent, never 0")
        #expect(row["pose_Rx"] != "" && row["x_0"] != "")
    }

    /// OpenFace's own output (py-feat's test data, OpenFace 2.0: before `face_id` and the gaze angles) has every
    /// other column Mien writes, in the same order (Mien leaves out only its eye-region landmarks).
    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func theColumns_areOpenFacesOwn_inItsOrder() throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        let text = try String(
            contentsOf: root.appendingPathComponent("pyfeat_test_data/OpenFace_Test.csv"), encoding: .utf8)
        let theirs = try #require(text.split(whereSeparator: \.isNewline).first).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let newer: Set = ["face_id", "gaze_angle_x", "gaze_angle_y"]
        let ours = OpenFaceTable.header.filter { !newer.contains($0) }
        let positions = ours.map { theirs.firstIndex(of: $0) }
        #expect(
            positions.allSatisfy { $0 != nil },
            "not in OpenFace's header: \(zip(ours, positions).filter { $0.1 == nil }.map(\.0))")
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "in another order than OpenFace's")
        #expect(theirs.contains("AU23_r") && OpenFaceTable.header.contains("AU23_r"))
    }
}
