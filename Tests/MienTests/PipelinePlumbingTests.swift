import Foundation
import Mien
import MienTesting
import Testing

/// The one pipeline with scripted faces and synthetic frames: writers, ordering, resume, frame limits,
/// cancellation and failures, without Mien's models.
///
/// Each input is a run (`Detector.run(writers:)`), the core's one lifecycle; the Affdex-style calls over it are
/// tested in DetectorLifecycleTests and DetectorTests.
@Suite("Detector and writers, scripted", .timeLimit(.minutes(10)))
struct PipelinePlumbingTests {
    func detector(
        frames count: Int = 30, kind: SourceKind = .video, failing: Set<Int> = [], options: DetectorOptions? = nil,
        settings: RunSettings = .standard, faces: ScriptedFaces = .one()
    ) throws -> Detector {
        Detector(
            source: .frames(
                name: "clip", open: { SyntheticFrames(name: "clip", count: count, kind: kind, failing: failing) }),
            options: try options ?? DetectorOptions(), settings: settings, stages: faces.stages)
    }

    @Test func writers_getEveryFrameOnce_inOrder_thenOneCompleteEnding() async throws {
        let plain = RecordingWriter()
        let drawing = RecordingWriter(wantsFrames: true)
        #expect(try await detector().run(writers: [plain, drawing]) == .complete)
        #expect(plain.info?.frameCount == 30 && plain.info?.kind == .video)
        #expect(plain.results.map(\.frameIndex) == Array(0..<30))
        #expect(drawing.results == plain.results)
        #expect(plain.results.allSatisfy { $0.input == "clip" && $0.width == 320 && $0.faces?.count == 1 })
        // Pixels only to the writer that asked for them.
        #expect(drawing.framesGiven == Array(repeating: true, count: 30))
        #expect(plain.framesGiven == Array(repeating: false, count: 30))
        #expect(plain.ends == [.complete] && drawing.ends == [.complete] && plain.failures.isEmpty)
        // One tracked face: found on frame 0, never lost, the face-count stream on every frame.
        #expect(plain.results.first?.found == [0] && plain.results.allSatisfy { $0.lost.isEmpty })
        #expect(plain.results.allSatisfy { $0.faceCount != nil })
    }

    @Test func aWriterThatFails_stopsTheInput_andEveryWriterIsToldToRemoveItsOutput() async throws {
        let breaking = RecordingWriter(failAt: 5)
        let other = RecordingWriter()
        let end = try await detector(frames: 60).run(writers: [other, breaking])
        #expect(end.error?.code == .ioFailure)
        #expect(breaking.results.map(\.frameIndex) == Array(0..<5))
        #expect(other.results.count <= 6, "writing stops at the failure, not at the end of the input")
        #expect(other.failures.count == 1 && breaking.failures.count == 1)
        #expect(other.ends.isEmpty && breaking.ends.isEmpty, "a failed output is never finished as if complete")
    }

    @Test func resume_ofAStream_replaysToTheBreak_andDeliversWhatAnUninterruptedRunDeliversAfterIt() async throws {
        let whole = RecordingWriter()
        #expect(try await detector().run(writers: [whole]) == .complete)
        let writer = RecordingWriter()
        let settings = try RunSettings(resume: ResumePoint(afterFrame: 9, nextFaceId: 1, openFaces: [0]))
        #expect(try await detector(settings: settings).run(writers: [writer]) == .complete)
        // Frames up to the break were analysed again, not delivered: the face keeps its ID, nothing is lost.
        #expect(writer.results.map(\.frameIndex) == Array(10..<30))
        #expect(writer.results.allSatisfy { $0.lost.isEmpty && $0.found.isEmpty })
        #expect(writer.results == Array(whole.results.dropFirst(10)))
    }

    @Test func resume_ofStills_startsAfterTheGivenFrame() async throws {
        let writer = RecordingWriter()
        let settings = try RunSettings(resume: ResumePoint(afterFrame: 9, nextFaceId: 3, openFaces: [1, 2]))
        #expect(try await detector(kind: .imageFolder, settings: settings).run(writers: [writer]) == .complete)
        #expect(writer.results.map(\.frameIndex) == Array(10..<30), "pictures after the break only")
        #expect(writer.results.allSatisfy { $0.faces?.count == 1 })
    }

    @Test func resumePoint_afterFinishedResults_continuesIDsAndClosesTheOpenFaces() {
        let results = [
            DetectorResult(frameIndex: 0, timestamp: 0, faces: [:], found: [0, 1]),
            DetectorResult(frameIndex: 1, timestamp: 0.1, faces: [:], lost: [0]),
            DetectorResult(frameIndex: 2, timestamp: 0.2, faces: [:], found: [4]),
        ]
        let point = ResumePoint(after: results)
        #expect(point == ResumePoint(afterFrame: 2, nextFaceId: 5, openFaces: [1, 4]))
        #expect(ResumePoint(after: []) == nil)
    }

    @Test func events_inOneOrderedList_areWrittenAsFoundLostAndReturned_andReadBackEqual() throws {
        let result = DetectorResult(
            frameIndex: 4, timestamp: 0.4, faces: [:],
            events: [.lost(faceId: 0), .found(faceId: 3), .returned(faceId: 1)])
        #expect(result.found == [3, 1] && result.lost == [0] && result.returned == [1])
        let data = try JSONEncoder().encode(result)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["found"] as? [Int] == [3, 1] && json["lost"] as? [Int] == [0])
        #expect(json["returned"] as? [Int] == [1])
        #expect(try JSONDecoder().decode(DetectorResult.self, from: data) == result)
        let quiet = DetectorResult(frameIndex: 5, timestamp: 0.5, faces: nil)
        let plain = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(quiet)) as? [String: Any])
        #expect(plain["returned"] == nil && plain["faces"] == nil && plain["found"] as? [Int] == [])
    }

    @Test func maximumFrames_endsTheInputComplete_afterThatManyFrames() async throws {
        let writer = RecordingWriter()
        #expect(try await detector(settings: RunSettings(maximumFrames: 7)).run(writers: [writer]) == .complete)
        #expect(writer.results.map(\.frameIndex) == Array(0..<7) && writer.ends == [.complete])
    }

    @Test func stop_beforeTheEnd_finishesTheWritersAsStopped() async throws {
        // A long input; stopped as soon as a few frames are out.
        let writer = RecordingWriter()
        let run = try await detector(frames: 100_000).start(writers: [writer])
        // Stopped 200 ms in by a thread of its own, not after a `Task.sleep`: in the parallel test run this task
        // may resume minutes late, while the run reads the whole input (230 KB a frame) on a core of its own.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.2)
            run.cancel()
        }
        #expect(await run.end() == .stopped)
        #expect(writer.ends == [.stopped])
        #expect(writer.results.count < 100_000)
        #expect(
            writer.results.map(\.frameIndex) == Array(0..<writer.results.count), "in order, none lost before the stop")
    }

    @Test func aFolderWithABadPicture_reportsItAsSkipped_andGoesOn() async throws {
        let writer = RecordingWriter()
        let detector = try detector(frames: 6, kind: .imageFolder, failing: [2, 4])
        #expect(try await detector.run(writers: [writer]) == .complete)
        #expect(writer.results.map(\.frameIndex) == [0, 1, 3, 5])
        #expect(writer.unreadableErrors.count == 2 && writer.unreadableErrors.allSatisfy { $0.code == .corruptData })
    }

    @Test func aVideoThatFails_deliversTheFramesBeforeIt_thenEndsFailed() async throws {
        let writer = RecordingWriter()
        let end = try await detector(frames: 20, failing: [12]).run(writers: [writer])
        #expect(end.error?.code == .corruptData)
        #expect(writer.results.map(\.frameIndex) == Array(0..<12))
        #expect(writer.ends.count == 1 && writer.ends.first?.error?.code == .corruptData)
        #expect(writer.failures.isEmpty, "the outputs hold the good frames and are kept")
    }

    @Test func aSourceThatCannotOpen_failsStart_andLeavesNoOutput() async throws {
        let writer = RecordingWriter()
        let detector = Detector(
            source: .frames(name: "gone", open: { throw MienError(.notFound, "no such file", input: "gone") }),
            options: try DetectorOptions(), stages: ScriptedFaces.one().stages)
        let gone = MienError(.notFound, "no such file", input: "gone")
        await #expect {
            try await detector.run(writers: [writer])
        } throws: {
            ($0 as? MienError) == gone
        }
        #expect(writer.failures == [gone] && writer.ends.isEmpty && writer.results.isEmpty)
    }

    @Test func aLiveSourceFasterThanTheAnalysis_dropsTheOldestWaitingFrames_andReportsThemInPlace() async throws {
        // 90 frames at once into an analysis that takes 20 ms a frame; no rate cap.
        let detector = Detector(
            source: .liveSource(name: "fast", open: { SyntheticFrames(name: "fast", count: 90, kind: .camera) }),
            options: try DetectorOptions(detection: DetectionOptions(), maxProcessRate: 1000),
            stages: ScriptedFaces.one(meshSeconds: 0.02).stages)
        let stream = ResultStream()
        let run = try await detector.start(writers: [stream])
        var results: [DetectorResult] = []
        for try await result in stream { results.append(result) }
        #expect(await run.end() == .complete)
        #expect(results.map(\.frameIndex) == Array(0..<90), "every frame reported once, in order")
        let processed = results.filter(\.processed).map(\.frameIndex)
        // Never more than `liveBufferCapacity` frames wait: nearly all of them are dropped, and the last
        // ones, still waiting when the source ended, are analysed.
        // (On a loaded machine the reader can deliver all 90 before the first is analysed: then only those 2.)
        #expect(processed.count >= 2 && processed.count <= 30, "\(processed.count) analysed")
        #expect(processed.suffix(2) == [88, 89])
        #expect(results.filter { !$0.processed }.allSatisfy { $0.faces == nil && $0.width == 320 })
    }

    @Test func faceLeavingAndComingBack_isLostThenFoundWithANewID() async throws {
        // In frames 10...14 nobody is there.
        let faces = ScriptedFaces { index in
            (10..<15).contains(index) ? [] : [Rect(x: 100, y: 60, width: 80, height: 80)]
        }
        let writer = RecordingWriter()
        #expect(try await detector(faces: faces).run(writers: [writer]) == .complete)
        let found = writer.results.flatMap(\.found)
        let lost = writer.results.flatMap(\.lost)
        #expect(found == [0, 1] && lost == [0])
    }
}

/// The library's writers, fed fake results: no models, no detector.
@Suite("Result writers", .timeLimit(.minutes(10)))
struct ResultWriterTests {
    func results() throws -> [DetectorResult] {
        var face = try JSONDecoder().decode(
            FaceResult.self,
            from: Data(
                #"{"faceId":0,"faceBounds":{"x":1,"y":2,"width":30,"height":40},"confidence":0.9,"flags":[],"valence":25,"engagement":40}"#
                    .utf8))
        var results: [DetectorResult] = []
        for index in 0..<5 {
            face.valence = Double(index * 10)
            results.append(
                DetectorResult(
                    input: "fake.mp4", frameIndex: index, timestamp: Double(index) / 10, width: 64, height: 48,
                    faces: index == 2 ? nil : [0: face], found: index == 0 ? [0] : []))
        }
        return results
    }

    @Test func jsonLines_roundTrip_andTheCheckpointReadsThemBack_droppingATornLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-writers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fake.mp4.jsonl").path
        let expected = try results()
        let complete = try JSONLinesWriter(path: path)
        for result in expected { try complete.write(result, frame: nil) }
        try complete.finish(.complete)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(try lines.map { try JSONDecoder().decode(DetectorResult.self, from: Data($0.utf8)) } == expected)
        // A second run killed after these frames: its temporary file holds every line, then a torn one.
        let killed = try JSONLinesWriter(path: path)
        for result in expected { try killed.write(result, frame: nil) }
        let partial = try #require(AtomicFile.leftovers(of: path).first)
        let handle = try #require(FileHandle(forWritingAtPath: partial))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"frameIndex":5,"tim"#.utf8))
        try handle.close()
        let checkpoint = try #require(ResumeCheckpoint.load(jsonlPath: path, outputs: [path]))
        let replayed = RecordingWriter()
        let found = try checkpoint.replay(into: [replayed])
        #expect(replayed.results == expected)
        #expect(found.point == ResumePoint(afterFrame: 4, nextFaceId: 1, openFaces: [0]) && !found.reachedSnapshot)
        checkpoint.removeLeftovers()
        #expect(AtomicFile.leftovers(of: path).isEmpty)
    }

    @Test func csv_hasARowPerFacePerProcessedFrame_andFailRemovesIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-writers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = folder.appendingPathComponent("kept.csv").path
        let writer = try CSVWriter(path: kept)
        for result in try results() { try writer.write(result, frame: nil) }
        try writer.finish(.stopped)
        let rows = try String(contentsOfFile: kept, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 1 + 4 && rows.first.map(String.init) == ResultTable.headerLine)
        let broken = folder.appendingPathComponent("broken.csv").path
        let failing = try CSVWriter(path: broken)
        try failing.write(try results()[0], frame: nil)
        failing.fail(MienError(.ioFailure, "disk full"))
        #expect(!FileManager.default.fileExists(atPath: broken) && AtomicFile.leftovers(of: broken).isEmpty)
    }

    @Test func summaryAndReport_shareOneSummary_andTheReportNamesHowTheInputEnded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-writers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = ReportWriter(input: "fake.mp4")
        let alone = SummaryWriter(path: folder.appendingPathComponent("alone.json").path, input: "fake.mp4")
        let shared = SummaryWriter(
            path: folder.appendingPathComponent("shared.json").path, input: "fake.mp4", sharing: report)
        let writers: [any ResultWriter] = [report, alone, shared]
        for result in try results() { for writer in writers { try writer.write(result, frame: nil) } }
        for writer in writers { try writer.finish(.stopped) }
        let a = try String(contentsOfFile: folder.appendingPathComponent("alone.json").path, encoding: .utf8)
        let b = try String(contentsOfFile: folder.appendingPathComponent("shared.json").path, encoding: .utf8)
        #expect(a == b && a.contains("valence"))
        #expect(report.part.problem == "interrupted")
        let pictures = ReportWriter(input: "pictures/")
        pictures.unreadable(MienError(.corruptData, "bad picture", input: "pictures/b.jpg"))
        try pictures.finish(.complete)
        #expect(pictures.part.problem == "some pictures could not be read")
        #expect(report.part.faces[0] != nil)
    }

    @Test func annotation_refusesAFileTargetThatDoesNotSuitTheInput() throws {
        let writer = AnnotationWriter(target: "annotated/out.png", input: "talk.mp4")
        #expect(throws: MienError.self) { try writer.begin(SourceInfo(kind: .video)) }
        #expect(throws: Never.self) {
            try AnnotationWriter(target: "annotated/out.mp4", input: "talk.mp4").begin(SourceInfo(kind: .video))
        }
        #expect(AnnotationWriter.namesFile("a/b.MP4") && !AnnotationWriter.namesFile("a/b"))
    }
}
