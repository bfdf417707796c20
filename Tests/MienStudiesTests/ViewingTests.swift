import Foundation
import Testing

@testable import Mien
@testable import MienStudies

/// Issue 79: what a page records of a viewing besides the face, checked as it comes, and its figures.
@Suite("Viewing record")
struct ViewingTests {
    @Test func events_areKeptInPlaybackOrder_andImpossibleOnesRefusedSayingWhy() throws {
        var viewing = Viewing()
        try viewing.adding(.init(kind: .hidden, at: 5), duration: 30)
        try viewing.adding(.init(kind: .visible, at: 9), duration: 30)
        // A timer's stamp a frame behind the event before it is not "backwards".
        try viewing.adding(.init(kind: .blur, at: 8.8), duration: 30)
        let refused: [(Viewing.Event, String)] = [
            (.init(kind: .hidden, at: -1), "0 s or later"),
            (.init(kind: .hidden, at: .nan), "0 s or later"),
            (.init(kind: .hidden, at: 45), "past the stimulus's end"),
            (.init(kind: .visible, at: 2), "playback order"),
            (.init(kind: .stall, at: 10, length: -3), "not a length"),
            (.init(kind: .rate, at: 10, rate: .infinity), "playback rate"),
        ]
        for (event, words) in refused {
            #expect(throws: Viewing.Refusal.self) { try viewing.adding(event, duration: 30) }
            do {
                try viewing.adding(event, duration: 30)
            } catch {
                #expect("\(error)".contains(words), "\(event): \(error)")
            }
        }
        #expect(viewing.events.count == 3 && viewing.refused == refused.count * 2)
        // A seek back is playback moving back: what follows it is compared with where it went.
        try viewing.adding(.init(kind: .seek, at: 12, to: 3), duration: 30)
        try viewing.adding(.init(kind: .stall, at: 3.5, length: 2.5), duration: 30)
        // Within a second past the end: taken as at the end.
        try viewing.adding(.init(kind: .fullscreenExit, at: 30.4), duration: 30)
        #expect(viewing.events.last?.at == 30)
    }

    @Test func aPageSendingMillions_isCutAtTheLimit_andCounted() throws {
        var viewing = Viewing()
        for index in 0..<(Viewing.limit + 50) {
            try? viewing.adding(.init(kind: index % 2 == 0 ? .blur : .focus, at: Double(index) / 1000), duration: 30)
        }
        #expect(viewing.events.count == Viewing.limit && viewing.refused == 50)
    }

    @Test func summary_addsEachStatesSpans_anOpenOneToTheEnd() throws {
        var viewing = Viewing()
        let events: [Viewing.Event] = [
            .init(kind: .hidden, at: 5), .init(kind: .visible, at: 9),
            .init(kind: .stall, at: 12, length: 3), .init(kind: .stall, at: 20, length: 0.5),
            .init(kind: .fullscreenExit, at: 22), .init(kind: .hidden, at: 25),
        ]
        for event in events { try viewing.adding(event, duration: 30) }
        viewing.camera = .init(width: 640, height: 480, frameRate: 24)
        let summary = viewing.figures(duration: 30)
        #expect(summary.hiddenSeconds == 9, "4 s, then 5 s to the end: \(summary)")
        #expect(summary.outOfFullscreenSeconds == 8 && summary.unfocusedSeconds == 0)
        #expect(summary.stalls == 2 && summary.stallSeconds == 3.5 && summary.cameraFps == 24)
        #expect(viewing.spans(from: .hidden, to: .visible, duration: 30) == [5...9, 25...30])
    }

    @Test func aSessionWrittenBeforeViewingWasRecorded_reads_withNone() throws {
        var progress = ParticipantSession.StimulusProgress()
        progress.frames = 3
        var object =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(progress)) as? [String: Any] ?? [:]
        object["viewing"] = nil
        let read = try JSONDecoder().decode(
            ParticipantSession.StimulusProgress.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(read.frames == 3 && read.viewing == nil)
        progress.viewing = Viewing()
        progress.viewing?.timing = .init(method: "frameCallback", frames: 10, median: 4, p95: 9, max: 17)
        let again = try JSONDecoder().decode(
            ParticipantSession.StimulusProgress.self, from: JSONEncoder().encode(progress))
        #expect(again == progress)
    }

    @Test func theManifest_carriesTheFigures_andParticipantsCSV_saysWhoseViewingWasNotRecorded() throws {
        let folder = try CollectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let settings = try CollectionSettings(stimuli: [CollectionTests.stimulus("ad")], consent: "ok")
        var seen = ParticipantSession(
            participant: "p1", number: 1, group: nil, order: ["ad"], tokenDigest: "d", started: "t")
        seen.stimuli["ad"] = .init()
        seen.stimuli["ad"]?.frames = 300
        seen.stimuli["ad"]?.coverage = 1
        var viewing = Viewing()
        try viewing.adding(.init(kind: .hidden, at: 10), duration: 30)
        try viewing.adding(.init(kind: .visible, at: 14.5), duration: 30)
        try viewing.adding(.init(kind: .stall, at: 20, length: 1.25), duration: 30)
        viewing.camera = .init(width: 640, height: 480, frameRate: 30)
        viewing.timing = .init(method: "frameCallback", frames: 300, median: 20, p95: 48, max: 70)
        seen.stimuli["ad"]?.viewing = viewing
        var quiet = seen
        quiet.participant = "p2"
        quiet.stimuli["ad"]?.viewing = nil
        try folder.writeManifests([seen, quiet], settings: settings)
        let manifest = try StudyManifest(path: folder.manifest.path)
        let figures = try #require(manifest.rows.first { $0.participant == "p1" }?.viewing)
        #expect(figures.hiddenSeconds == 4.5 && figures.stalls == 1 && figures.stallSeconds == 1.25)
        #expect(figures.cameraFps == 30 && figures.timingSpreadMs == 48 && figures.outOfFullscreenSeconds == 0)
        #expect(manifest.rows.first { $0.participant == "p2" }?.viewing == nil)

        let series = CollectionFolder.series(of: manifest, settings: .standard, watched: { _ in true })
        let table = StudyTables.participants(Study(participants: series, settings: .standard), problems: [])
        let lines = table.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let header = lines[0].map(String.init)
        let column = try #require(header.firstIndex(of: "viewing"))
        let hidden = try #require(header.firstIndex(of: "hiddenSeconds"))
        let rows = Dictionary(uniqueKeysWithValues: lines.dropFirst().map { (String($0[0]), $0) })
        #expect(rows["p1"]?[column] == "recorded" && rows["p1"]?[hidden] == "4.500")
        #expect(rows["p2"]?[column] == "not recorded" && rows["p2"]?[hidden] == "")
    }

    @Test func rules_parseFromTheDefaults_andRefuseWhatIsNotARule() throws {
        #expect(try ViewingRules(parsing: "") == .standard)
        #expect(try ViewingRules(parsing: "off") == .none)
        let changed = try ViewingRules(parsing: "hidden=0.2, fullscreen=0.5,timing=off")
        #expect(changed.hidden == 0.2 && changed.fullscreen == 0.5 && changed.timing == nil && changed.stalls == 3)
        for bad in ["hidden", "hidden=2", "stalls=-1", "blinks=3", "timing=soon"] {
            #expect(throws: MienError.self, "\(bad)") { try ViewingRules(parsing: bad) }
        }
        #expect(ViewingRules.standard.description.contains("hidden for at most 10 %"))
        // A face with no natural movement is flagged, not judged, by default; a study may choose the rule.
        #expect(ViewingRules.standard.still == nil)
        let still = try ViewingRules(parsing: "still=4")
        var figures = ViewingFigures(
            hiddenSeconds: 0, outOfFullscreenSeconds: 0, unfocusedSeconds: 0, stalls: 0, stallSeconds: 0, seeks: 0,
            cameraFps: nil, timingSpreadMs: nil)
        figures.stillSeconds = 12.5
        #expect(
            still.broken(by: figures, duration: 30) == [
                "viewing rule still: no natural movement (blink, head turn or expression) for 12.5 s (at most 4 s)"
            ])
        #expect(ViewingRules.standard.broken(by: figures, duration: 30).isEmpty)
        let cells = Dictionary(uniqueKeysWithValues: zip(ViewingFigures.columns, figures.cells))
        #expect(cells["stillSeconds"] == "12.500" && ViewingFigures(cells: cells)?.stillSeconds == 12.5)
    }

    @Test func aViewingBreakingARule_isExcludedNamingItAndByHowMuch_oneNotRecordedIsLabelled() throws {
        let figures = ViewingFigures(
            hiddenSeconds: 4.5, outOfFullscreenSeconds: 30, unfocusedSeconds: 0, stalls: 2, stallSeconds: 3.5, seeks: 0,
            cameraFps: 4, timingSpreadMs: nil)
        let broken = ViewingRules.standard.broken(by: figures, duration: 30)
        #expect(
            broken == [
                "viewing rule hidden: the page was hidden 4.5 s of 30 s (15 %; at most 10 %)",
                "viewing rule stalls: the stimulus stalled 2 times for 3.5 s (at most 3 s)",
                "viewing rule camera-fps: the camera delivered 4 frames per second (at least 5)",
            ], "out of full screen is not judged by default; an unmeasured spread breaks nothing: \(broken)")
        #expect(ViewingRules.none.broken(by: figures, duration: 30).isEmpty)

        let manifest = try StudyManifest(
            text: """
                recording,participant,stimulus,onset,duration,status,measured,hiddenSeconds,outOfFullscreenSeconds,unfocusedSeconds,stalls,stallSeconds,seeks
                a.mp4,p1,ad,0,30,complete,1,4.5,0,0,0,0,0
                b.mp4,p2,ad,0,30,complete,1,1.0,0,0,0,0,0
                c.mp4,p3,ad,0,30,complete,1,,,,,,
                """, source: "manifest")
        let series = CollectionFolder.series(
            of: manifest, settings: .standard, watched: { _ in true }, viewingRules: .standard,
            content: { _ in nil })
        // No results here: every row is excluded for that first; the viewing rule is checked on included rows only.
        #expect(series.allSatisfy { $0.exclusion?.contains("no results") == true })
        #expect(series[2].notes.contains("viewing not recorded") && !series[1].notes.contains("viewing not recorded"))
    }

    /// Every viewing is an exposure (issue 95 item 2): a viewer who hid the tab 5 s of a 20-s advert, was measured
    /// too little and was shown it again, cleanly, is listed with 2 exposures, the hidden seconds of both, and is
    /// excluded by the `hidden` rule (the replay is no first view); the notes say so.
    @Test func aReplay_isCountedAndJudged_withTheViewingItFollowed() throws {
        func progress(hiddenFrom: Double?) throws -> ParticipantSession.StimulusProgress {
            var progress = ParticipantSession.StimulusProgress()
            progress.frames = 100
            progress.coverage = hiddenFrom == nil ? 1 : 0.6
            var viewing = Viewing()
            if let hiddenFrom {
                try viewing.adding(.init(kind: .hidden, at: hiddenFrom), duration: 20)
                try viewing.adding(.init(kind: .visible, at: hiddenFrom + 5), duration: 20)
            }
            progress.viewing = viewing
            return progress
        }
        var session = ParticipantSession(
            participant: "p1", number: 1, group: nil, order: ["ad"], tokenDigest: "d", started: "s")
        session.attempts = [
            .init(
                stimulus: "ad", number: 1, progress: try progress(hiddenFrom: 4), reason: "measured too little",
                ended: "t")
        ]
        session.stimuli["ad"] = try progress(hiddenFrom: nil)
        let settings = try CollectionSettings(
            stimuli: [.init(name: "ad", file: "ad.mp4", sha256: String(repeating: "0", count: 64), duration: 20)],
            consent: "ok")
        #expect(session.exposures(of: "ad") == 2)
        let text = CollectionFolder.manifests([session], settings: settings).live
        let manifest = try StudyManifest(text: text, source: "manifest")
        let row = try #require(manifest.rows.first)
        #expect(row.exposures == 2 && row.viewing?.hiddenSeconds == 5, "\(text)")
        let series = CollectionFolder.series(
            of: manifest, settings: .standard, watched: { _ in true }, viewingRules: .standard,
            content: { _ in nil })
        #expect(series.first?.notes.contains { $0.hasPrefix("2 exposures") } == true, "\(series.first?.notes ?? [])")
        // The rule is settable: first viewings only (`--exposure first-only`) leaves the replayed viewer out, saying so.
        // A face watching throughout, 10 frames a second.
        var face = FaceResult(
            detection: FaceDetection(
                bounds: Rect(x: 10, y: 10, width: 100, height: 100),
                keypoints: Array(repeating: Point(x: 50, y: 50), count: 6), confidence: 0.9),
            faceId: 0)
        face.emotions = Scores([.joy: 10])
        face.measures["onScreen"] = 100
        var lines = Data()
        for index in 0..<200 {
            lines += try JSONEncoder().encode(
                DetectorResult(frameIndex: index, timestamp: Double(index) / 10, faces: [0: face]))
            lines += Data("\n".utf8)
        }
        var strict = StudySettings.standard
        strict.exposure = .firstOnly
        let firstOnly = CollectionFolder.series(
            of: manifest, settings: strict, watched: { _ in false }, viewingRules: .standard,
            content: { _ in .memory(lines: lines, events: nil, source: "p1") })
        #expect(firstOnly.first?.exclusion?.hasPrefix("2 exposures: shown the stimulus again") == true)
        #expect(
            ViewingRules.standard.broken(by: try #require(row.viewing), duration: 20).first?.hasPrefix(
                "viewing rule hidden") == true)
        // The live count toward targets (`--targets-count usable`) judges the same exposures: the clean replay alone
        // would pass, both together break `hidden`.
        #expect(session.viewingBroken(settings).first?.hasPrefix("ad: viewing rule hidden") == true)
        var replayOnly = session
        replayOnly.attempts = []
        #expect(replayOnly.viewingBroken(settings).isEmpty)
    }
}
