import Foundation
import Mien
import MienTesting
import Testing

/// `mien study` on real faces: recordings made from the evaluation data (`StudyRecordings`).
@Suite("mien study", .serialized)
struct StudyCommandTests {
    /// What the tests read of `study.json`.
    struct StudyFile: Decodable {
        var participants: [ParticipantSeries]
        var curves: [StudyCurvePoint]
        var moments: [StudyMoment]
        var correlations: [StudyCorrelation]
        var problems: [StudyManifest.Problem]
    }

    private func readStudy(in folder: URL) throws -> StudyFile {
        try JSONDecoder().decode(
            StudyFile.self, from: Data(contentsOf: folder.appendingPathComponent("study.json")))
    }

    private func manifest(_ lines: [String], in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("manifest.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func aRecordingWithFootageBefore_alignsWithItsTwin_andOneWithoutAFaceIsExcluded() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try #require(SampleMedia.evaluationDirectory)
        _ = try StudyRecordings.writeTalking(in: folder, evaluation: root)
        let lead = Double(StudyRecordings.leadFrames) / StudyRecordings.talkingFramesPerSecond
        let path = try manifest(
            [
                "recording,participant,stimulus,onset",
                "talking.avi,p1,talk,\(1 / StudyRecordings.talkingFramesPerSecond)", "talking-late.avi,p2,talk,\(lead)",
                "grass.avi,p3,talk,0",
            ], in: folder)
        let output = folder.appendingPathComponent("study")
        let run = try runMien([
            "study", path, "--output", output.path, "--metrics", "expressions,emotions,gaze", "--bin", "0.2",
            "--jobs", "2",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let study = try readStudy(in: output)
        let byName = Dictionary(uniqueKeysWithValues: study.participants.map { ($0.row.participant, $0) })
        let (p1, p2, p3) = try (#require(byName["p1"]), #require(byName["p2"]), #require(byName["p3"]))
        #expect(p1.included && p2.included)
        #expect(p3.exclusion == "no face in the stimulus window", "\(p3.exclusion ?? "included")")
        #expect(p1.faceShare == 1 && p2.faceShare == 1 && p1.frames == StudyRecordings.talkingFrames)
        #expect(p1.binCount == 20 && p2.binCount == 20)
        // Every metric's binned series is the same once aligned: the frames are the same pixels.
        #expect(p1.bins.count > 20 && Set(p1.bins.keys) == Set(p2.bins.keys))
        for (metric, series) in p1.bins {
            let twin = try #require(p2.bins[metric])
            #expect(
                zip(series, twin).allSatisfy { a, b in a == b || abs((a ?? .nan) - (b ?? .nan)) < 1e-9 }, "\(metric)")
        }
        #expect(p1.episodeBins == p2.episodeBins && p1.episodeCounts == p2.episodeCounts)
        // The panel's curve is that participant's own series, and each correlates 1 with the other.
        let smile = study.curves.filter { $0.group == "all" && $0.metric == "expressions.smile" }
        #expect(smile.count == 20)
        for point in smile {
            let own = try #require(p1.bins["expressions.smile"]?[Int((point.time / 0.2).rounded())])
            #expect(point.n == 2 && abs((point.mean ?? .nan) - own) < 1e-9)
        }
        let correlated = study.correlations.filter { $0.group == "all" && $0.n == 2 }
        #expect(correlated.count > 10)
        #expect(correlated.allSatisfy { abs(($0.isc ?? 0) - 1) < 1e-9 }, "\(correlated.map { ($0.metric, $0.isc) })")
        // The tables are there; a second run reuses the recordings' files.
        for table in ["curves.csv", "participants.csv", "moments.csv", "isc.csv"] {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(table).path), "\(table)")
        }
        let again = try runMien([
            "study", path, "--output", output.path, "--metrics", "expressions,emotions,gaze", "--bin", "0.2",
        ])
        #expect(again.status == 0 && again.stderr.contains("outputs complete, skipped"), "\(again.stderr)")
        #expect(try readStudy(in: output).curves == study.curves)
    }
}
