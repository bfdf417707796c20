import Foundation
import Mien
import MienTesting
import Testing

/// `mien analyze --reidentify` on a video of two real people who leave and come back (`ReentryClip`: the
/// evaluation data's talking head and the bundled astronaut).
@Suite("mien analyze --reidentify", .serialized)
struct ReidentifyCommandTests {
    /// Writes the re-entry clip as an MPEG-4 file.
    private func clip(in folder: URL) throws -> String {
        let root = try #require(SampleMedia.evaluationDirectory)
        let clip = try ReentryClip(
            videoA: root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path,
            stillB: SampleMedia.astronautPath)
        let path = folder.appendingPathComponent("reentry.mp4").path
        let writer = try VideoWriter(
            path: path, width: ReentryClip.width, height: ReentryClip.height,
            framesPerSecond: ReentryClip.framesPerSecond)
        for index in 0..<ReentryClip.frameCount { try writer.write(clip.frame(at: index)) }
        try writer.finish()
        return path
    }

    private func faces(inSummaryOf base: String) throws -> [Int] {
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: base + ".summary.json")))
                as? [String: Any])
        let faces = try #require(summary["faces"] as? [[String: Any]])
        return faces.compactMap { $0["faceId"] as? Int }
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func returningPeople_haveOneSummaryRowEach_andTheResultsSayWhoCameBack() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = try clip(in: folder)
        let on = folder.appendingPathComponent("on")
        let run = try runMien(["analyze", video, "--reidentify", "--metrics", "expressions", "--output", on.path])
        #expect(run.status == 0, "\(run.stderr)")
        let base = on.appendingPathComponent("reentry.mp4").path
        #expect(try faces(inSummaryOf: base) == [0, 1])
        let lines = try String(contentsOfFile: base + ".jsonl", encoding: .utf8).split(separator: "\n")
        let returned = try lines.compactMap { line -> [Int]? in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["returned"] as? [Int]
        }
        // A after the gap; A and B together when they cross.
        #expect(returned == [[0], [0, 1]] || returned == [[0], [1, 0]], "\(returned)")
        // Nothing of the descriptors reaches the outputs.
        let csv = try String(contentsOfFile: base + ".csv", encoding: .utf8)
        #expect(!lines.contains { $0.contains("descriptor") } && !csv.contains("descriptor"))

        let off = folder.appendingPathComponent("off")
        #expect(try runMien(["analyze", video, "--metrics", "expressions", "--output", off.path]).status == 0)
        #expect(try faces(inSummaryOf: off.appendingPathComponent("reentry.mp4").path) == [0, 1, 2, 3, 4])
    }

    @Test func windowWithoutReidentify_isRefused() throws {
        let run = try runMien(["analyze", SampleMedia.astronautPath, "--reidentify-window", "5"])
        #expect(run.status == 64 && run.stderr.contains("--reidentify-window needs --reidentify"), "\(run.stderr)")
    }
}
