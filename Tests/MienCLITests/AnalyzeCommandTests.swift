import Foundation
import MienTesting
import Testing

/// Rows of a CSV file without quoted commas (Mien's cells never contain any but flags' semicolons).
private func csvRows(_ path: String) throws -> [[String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map {
        $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
}

@Suite("mien analyze", .timeLimit(.minutes(10)))
struct AnalyzeCommandTests {
    @Test func sample_writesJSONLinesCSVAndSummary_inAffdexSpelling() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runMien(["analyze", SampleMedia.astronautPath, "--output", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let base = folder.appendingPathComponent("astronaut.jpg").path
        let rows = try csvRows(base + ".csv")
        #expect(rows.count == 2)
        let header = rows[0]
        for column in [
            "TimeStamp", "faceId", "joy", "valence", "engagement", "smile", "attention", "dominantEmoji", "gender",
        ] {
            #expect(header.contains(column), "\(column)")
        }
        let row = Dictionary(uniqueKeysWithValues: zip(header, rows[1]))
        #expect(Double(row["smile"] ?? "") ?? 0 > 50 && Double(row["joy"] ?? "") ?? 0 > 50)
        let line = try #require(
            try String(contentsOfFile: base + ".jsonl", encoding: .utf8).split(separator: "\n").first)
        let frame = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((frame["faces"] as? [String: Any])?["0"] != nil)
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: base + ".summary.json")))
                as? [String: Any])
        #expect(summary["processedFrames"] as? Int == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary files left: \(leftovers)")
    }

    @Test func disabledMetrics_areEmptyCells() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runMien([
            "analyze", SampleMedia.astronautPath, "--output", folder.path, "--metrics", "expressions", "--format",
            "csv",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try csvRows(folder.appendingPathComponent("astronaut.jpg.csv").path)
        let row = Dictionary(uniqueKeysWithValues: zip(rows[0], rows[1]))
        #expect(row["joy"] == "" && row["gender"] == "" && row["wink"] == "" && row["valence"] == "")
        #expect(!(row["smile"] ?? "").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("astronaut.jpg.jsonl").path))
    }

    @Test func unreadableInput_amongGoodOnes_failsAlone() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("broken.jpg")
        try Data("not a picture".utf8).write(to: bad)
        let out = folder.appendingPathComponent("out").path
        let result = try runMien(["analyze", bad.path, SampleMedia.astronautPath, "--output", out])
        #expect(result.status == 1)
        #expect(result.stderr.contains("broken.jpg"))
        #expect(FileManager.default.fileExists(atPath: out + "/astronaut.jpg.csv"))
    }

    @Test func annotate_writesAPictureAndAVideo_withTheFacesDrawn() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 10).write(to: clip)
        let result = try runMien([
            "analyze", SampleMedia.astronautPath, clip, "--output", folder.path, "--annotate", folder.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let picture = folder.appendingPathComponent("astronaut.jpg.png").path
        let video = folder.appendingPathComponent("clip.mp4.mp4").path
        #expect(FileManager.default.fileExists(atPath: picture) && FileManager.default.fileExists(atPath: video))
        // The drawn picture is the photo plus overlays: same size, different pixels around the face.
        let detected = try runMien(["detect", "--detector-only", picture])
        #expect(detected.status == 0 && (detected.jsonLines.first?["width"] as? Int) == 512)
        #expect(try Data(contentsOf: URL(fileURLWithPath: video)).count > 1000)
        let rows = try csvRows(folder.appendingPathComponent("clip.mp4.csv").path)
        #expect(rows.count == 11, "a video being annotated is still analysed frame by frame")
    }

    @Test func resume_skipsCompleteInputs() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try runMien(["analyze", SampleMedia.astronautPath, "--output", folder.path]).status == 0)
        let again = try runMien(["analyze", SampleMedia.astronautPath, "--output", folder.path, "--resume"])
        #expect(again.status == 0 && again.stderr.contains("skipped (--resume)"))
        #expect(
            try runMien(["analyze", SampleMedia.astronautPath, "--resume"]).status == 64, "--resume needs --output")
    }

    @Test func aScreenElsewhere_changesOnScreen_andABadOneIsNamed() throws {
        func onScreen(_ extra: [String]) throws -> Double? {
            let run = try runMien(["analyze", SampleMedia.astronautPath, "--metrics", "gaze"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            let line = try #require(run.stdout.split(separator: "\n").first)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let faces = object?["faces"] as? [String: [String: Any]]
            return faces?.values.first?["onScreen"] as? Double
        }
        #expect(try onScreen([]) == 100, "the astronaut looks into the camera, just above a laptop's screen")
        #expect(try onScreen(["--screen", "55,0,20,20"]) == 0, "a screen 55° aside")
        for bad in ["40,0,20", "a,0,20,20", "0,0,0,20", "90,0,20,20"] {
            let run = try runMien(["analyze", SampleMedia.astronautPath, "--screen", bad])
            #expect(run.status == 64 && run.stderr.contains("screen"), "\(bad): \(run.stderr)")
        }
    }

    @Test func sigint_stopsCleanly_leavingValidFilesForTheFramesDone() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("long.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 600).write(to: clip)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mienPath())
        process.arguments = ["analyze", clip, "--output", folder.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt once a few frames are written, not after a fixed time: a fast machine with idle cores
        // analysed all 600 frames within 4 s (so the interrupt came too late to test anything).
        let started = waitForFinishedFrames(of: "long.mp4", in: folder, atLeast: 3, timeout: 60) != nil
        process.interrupt()
        process.waitUntilExit()
        #expect(started, "three frames were not written within 60 s")
        #expect(process.terminationStatus == 130)
        let rows = try csvRows(folder.appendingPathComponent("long.mp4.csv").path)
        #expect(rows.count > 1 && rows.count < 601, "\(rows.count - 1) frames done")
        #expect(rows.dropFirst().allSatisfy { $0.count == rows[0].count }, "every row complete")
        let lines = try String(contentsOfFile: folder.appendingPathComponent("long.mp4.jsonl").path, encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("long.mp4.summary.json").path))
    }

    @Test func report_isOneSelfContainedPage_withTimelinesThumbnailsAndTables() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("clip.mp4").path
        // 2 s: her first second settles (no episode opens on a settling frame), then her smile is an episode.
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 12, framesPerSecond: 6).write(to: clip)
        let report = folder.appendingPathComponent("report.html").path
        let result = try runMien([
            "analyze", clip, SampleMedia.astronautPath, "--output", folder.path, "--report", report,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let html = try String(contentsOfFile: report, encoding: .utf8)
        func count(_ needle: String) -> Int { html.components(separatedBy: needle).count - 1 }
        #expect(count("<section id=\"input-") == 2)
        #expect(count("<article class=\"face\"") == 2, "one face per input")
        #expect(
            count("<svg class=\"chart\"") == 5,
            "emotions, valence, engagement, gaze and the episode lanes for the video; none for a photo")
        // Her smile through the clip is drawn as a band in its lane.
        #expect(
            html.contains("<title>expressions.smile ") && !html.contains("<title>expressions.smile 0 s–"),
            "the smile episode's band, after her first second")
        #expect(count("<polyline") >= 11, "7 emotions + valence + engagement + gaze yaw and pitch over the clip")
        #expect(html.contains("Gaze (degrees"), "the gaze timeline")
        #expect(count("src=\"data:image/jpeg;base64,") == 2, "a thumbnail per face")
        #expect(html.contains("<td>joy</td>"), "the summary table")
        #expect(!html.contains("http://") && !html.contains("https://"), "nothing from the network")
        #expect(
            try runMien(["analyze", SampleMedia.astronautPath, "--report", folder.path + "/r.txt"]).status == 64,
            "--report names an .html file")
    }

    @Test func jobs_analyseInputsInParallel_withTheSameResultsAsOneAtATime() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 20).write(to: clip)
        var tables: [[String]] = []
        for jobs in ["1", "2"] {
            let out = folder.appendingPathComponent("jobs\(jobs)").path
            let result = try runMien([
                "analyze", clip, SampleMedia.astronautPath, "--output", out, "--format", "csv", "--jobs", jobs,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            tables.append(
                try ["clip.mp4.csv", "astronaut.jpg.csv"].map {
                    try String(contentsOfFile: out + "/" + $0, encoding: .utf8)
                })
        }
        #expect(tables[0] == tables[1])
        #expect(tables[0][0].split(separator: "\n").count == 21)
    }

    @Test func jsonLinesOnStandardOutput_nameTheirInput() throws {
        let result = try runMien(["analyze", SampleMedia.astronautPath, "--metrics", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.jsonLines.count == 1)
        #expect((result.jsonLines.first?["input"] as? String) == SampleMedia.astronautPath)
    }
}
