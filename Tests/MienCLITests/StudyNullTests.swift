import Foundation
import Mien
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
            // Measured (seed 57): 0 and 1 of 20 with a difference, 1 and 1 with an ISC p < 0.05.
            #expect(withDifference <= 2, "\(groups) groups: \(withDifference) of 20 null studies report a difference")
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
}
