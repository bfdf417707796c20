import Foundation
import MienTesting
import Testing

@testable import Mien

/// Records delegate callbacks in order.
private final class Recorder: DetectorDelegate, @unchecked Sendable {
    // Written by the detector's one delivering thread, read after it has stopped.
    private let lock = NSLock()
    private var log: [String] = []
    var events: [String] { lock.withLock { log } }
    private func add(_ line: String) { lock.withLock { log.append(line) } }

    func detector(_ detector: Detector, didFind face: FaceResult) { add("found \(face.faceId)") }
    func detector(_ detector: Detector, didLoseFace faceId: Int) { add("lost \(faceId)") }
    func detector(_ detector: Detector, didProcess result: DetectorResult) {
        add(result.processed ? "frame \(result.frameIndex) faces \(result.faces?.keys.sorted() ?? [])" : "skipped")
    }
    func detectorDidFinishProcessing(_ detector: Detector) { add("finished") }
    func detector(_ detector: Detector, didFail error: MienError) { add("failed \(error.code)") }
}

/// A camera stand-in: `count` frames of the astronaut clip, as fast as they are asked for.
private final class FakeCamera: FrameSource {
    let name = "fake camera"
    let info = SourceInfo(kind: .camera, width: 320, height: 240, framesPerSecond: 30)
    private let clip: PanAndZoomClip
    private var next = 0
    init(count: Int) throws { clip = try SampleMedia.astronautClip(width: 320, height: 240, frameCount: count) }
    func nextFrame() throws -> Frame? {
        guard next < clip.frameCount else { return nil }
        defer { next += 1 }
        return try clip.frame(at: next)
    }
}

private func models() throws -> ModelStore {
    try ModelStore(directory: SampleMedia.repositoryRoot.appendingPathComponent("Models"))
}

private func code(_ body: () throws -> Void) -> MienError.Code? {
    do {
        try body()
        return nil
    } catch let error as MienError {
        return error.code
    } catch {
        return .internalFailure
    }
}

@Suite("Detector", .timeLimit(.minutes(10)))
struct DetectorTests {
    @Test func csvColumns_areUnique_andEmptyForMetricsNotAskedFor() throws {
        #expect(Set(ResultTable.header).count == ResultTable.header.count)
        let detector = Detector(
            source: .discreteImages, options: try DetectorOptions(metrics: [.emotion(.joy)]), models: try models())
        try detector.start()
        let lines = ResultTable.lines(for: try detector.process(ImageDecoder.decode(file: SampleMedia.astronautPath)))
        let cells = try #require(lines.first).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(cells.count == ResultTable.header.count)
        let row = Dictionary(uniqueKeysWithValues: zip(ResultTable.header, cells))
        #expect(row["smile"] == "" && row["valence"] == "" && !(row["joy"] ?? "").isEmpty)
    }

    @Test func options_areValidatedAtCreation() {
        #expect(code { _ = try DetectorOptions(maximumFaces: 0) } == .invalidOptions)
        #expect(code { _ = try DetectorOptions(maxProcessRate: 0) } == .invalidOptions)
        #expect(code { _ = try DetectorOptions(maxProcessRate: .infinity) } == .invalidOptions)
    }

    @Test func misuse_isAThrownError() throws {
        let images = Detector(source: .discreteImages, options: try DetectorOptions(), models: try models())
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        #expect(code { try images.process(frame) } == .notStarted)
        try images.start()
        #expect(code { try images.start() } == .wrongRunningMode)
        images.stop()
        #expect(code { try images.process(frame) } == .notStarted)

        let video = Detector(
            source: .videoFile(path: "/no/such.mp4"), options: try DetectorOptions(), models: try models())
        #expect(code { try video.process(frame) } == .wrongRunningMode)
        #expect(code { try video.start() } == .notFound)
        let camera = Detector(source: .camera(device: "97"), options: try DetectorOptions(), models: try models())
        #expect([.notFound, .deviceUnavailable].contains(code { try camera.start() }))

        let pushed = Detector(source: .pushedFrames, options: try DetectorOptions(), models: try models())
        try pushed.start()
        var later = frame
        later.timestamp = 2
        try pushed.process(later)
        var earlier = frame
        earlier.timestamp = 1
        #expect(code { try pushed.process(earlier) } == .nonMonotonicTimestamp)
        pushed.stop()
    }

    @Test func classifierSwitches_leaveOthersNil_andSkipTheirStages() throws {
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let smileOnly = Detector(
            source: .discreteImages, options: try DetectorOptions(metrics: [.expression(.smile)]), models: try models())
        try smileOnly.start()
        let face = try #require(try smileOnly.process(frame).faces?[0])
        #expect((face.expressions?[.smile] ?? 0) > 50)
        #expect(face.expressions?[.browRaise] == nil && face.emoji == nil && face.emotions == nil && face.gender == nil)
        #expect(smileOnly.stagesRunning.expressions && !smileOnly.stagesRunning.affect)

        let bare = Detector(source: .discreteImages, options: try DetectorOptions(), models: try models())
        try bare.start()
        let plain = try #require(try bare.process(frame).faces?[0])
        #expect(plain.expressions == nil && plain.orientation != nil && plain.facePoints?.count == 34)
        #expect(!bare.stagesRunning.expressions && !bare.stagesRunning.affect, "no metric, no blendshapes")

        let everything = Detector(
            source: .discreteImages, options: try DetectorOptions(metrics: .all), models: try models())
        try everything.start()
        let full = try #require(try everything.process(frame).faces?[0])
        #expect(full.emotions?[.joy] != nil && full.valence != nil && full.gender != nil && full.glasses == false)
        #expect(full.emoji?[.smiley] != nil && full.expressions?[.attention] != nil)
        let json = String(decoding: try JSONEncoder().encode(try everything.process(frame)), as: UTF8.self)
        #expect(json.contains("\"faceBounds\"") && json.contains("\"joy\"") && json.contains("\"smile\""))
    }

    @Test func videoFile_rateCap_delegateOrder_andFinishedOnce() async throws {
        // 60 frames at 30 fps (2 s) with maxProcessRate 5: every 6th frame is analysed.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mien-detector-\(UUID()).mp4").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 60).write(to: path)
        let detector = Detector(
            source: .videoFile(path: path), options: try DetectorOptions(maxProcessRate: 5), models: try models())
        let recorder = Recorder()
        detector.delegate = recorder
        // With a delegate set, the sequence is fed from the moment it is first read: read it before start.
        let stream = detector.results
        try detector.start()
        var results: [DetectorResult] = []
        for await result in stream { results.append(result) }
        #expect(results.count == 60)
        let processed = results.filter(\.processed).count
        #expect((9...11).contains(processed), "\(processed) processed of 60")
        let events = recorder.events
        #expect(events.first == "found 0" && events.dropFirst().first == "frame 0 faces [0]")
        #expect(events.last == "finished" && events.filter { $0 == "finished" }.count == 1)
        #expect(events.filter { $0 == "skipped" }.count == 60 - processed)
    }

    @Test func pushedFrames_stampedByAJitteryClock_getTheAskedRate() throws {
        // 60 frames at 30 fps (2 s), each stamped up to 8 ms early or late, as a sender's timer stamps them.
        let clip = try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 1)
        var generator = SeededGenerator(seed: 11)
        let stamps = (0..<60).map { Double($0) / 30 + Double.random(in: -0.008...0.008, using: &generator) }
        for (rate, expected) in [(30.0, 57...60), (15.0, 28...31)] {
            let detector = Detector(
                source: .pushedFrames, options: try DetectorOptions(maxProcessRate: rate), models: try models())
            try detector.start()
            var processed = 0
            for stamp in stamps {
                var frame = try clip.frame(at: 0)
                frame.timestamp = stamp
                if try detector.process(frame).processed { processed += 1 }
            }
            detector.stop()
            #expect(expected.contains(processed), "rate \(rate): \(processed) of 60 frames in 2 s")
        }
    }

    @Test func liveSource_defaultsToFivePerSecond_dropsWhatItCannotAnalyse_andNeverFinishes() async throws {
        let detector = Detector(
            source: .liveSource(name: "fake", open: { try FakeCamera(count: 90) }), options: try DetectorOptions(),
            models: try models())
        let recorder = Recorder()
        detector.delegate = recorder
        let results = try await collectResults(of: detector, count: 90)
        #expect(results.map(\.frameIndex) == Array(0..<90), "every frame reported once, in order")
        let processed = results.filter(\.processed).count
        // 3 s of frames: at most 5 per second are analysed (fewer when frames were dropped unseen).
        #expect(processed >= 1 && processed <= 16, "\(processed)")
        #expect(!recorder.events.contains("finished"))
    }

    @Test func pushedFrames_trackFaces_andResetStartsOver() throws {
        let clip = try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 10)
        let detector = Detector(source: .pushedFrames, options: try DetectorOptions(), models: try models())
        let recorder = Recorder()
        detector.delegate = recorder
        try detector.start()
        for index in 0..<10 { try detector.process(clip.frame(at: index)) }
        #expect(recorder.events.filter { $0.hasPrefix("found") } == ["found 0"])
        detector.reset()
        let again = try detector.process(clip.frame(at: 0))
        #expect(again.faces?.keys.sorted() == [0] && again.found == [0] && again.frameIndex == 0)
        detector.stop()
    }

    @Test func continuousImages_keepFaceIds_andLoseAFaceAfterItsLastFrame() throws {
        let photo = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let blank = try Frame(width: 512, height: 512, pixels: [UInt8](repeating: 90, count: 512 * 512 * 3))
        let detector = Detector(source: .continuousImages, options: try DetectorOptions(), models: try models())
        let recorder = Recorder()
        detector.delegate = recorder
        try detector.start()
        for second in 0..<4 {
            var picture = second < 3 ? photo : blank
            picture.timestamp = Double(second)
            let result = try detector.process(picture)
            #expect(result.frameIndex == second)
        }
        #expect(
            recorder.events == [
                "found 0", "frame 0 faces [0]", "frame 1 faces [0]", "frame 2 faces [0]", "frame 3 faces []", "lost 0",
            ])
        detector.stop()
    }

    @Test func resultsNobodyAsksFor_areNotBuffered() throws {
        // A pushed-frames detector used through `process(_:)` only: the sequence stays empty.
        let detector = Detector(source: .pushedFrames, options: try DetectorOptions(), models: try models())
        try detector.start()
        let clip = try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 3)
        for index in 0..<3 { _ = try detector.process(try clip.frame(at: index)) }
        #expect(!detector.isFeedingResults)
        detector.stop()
        let asked = Detector(source: .pushedFrames, options: try DetectorOptions(), models: try models())
        _ = asked.results
        #expect(asked.isFeedingResults)
    }

    @Test func aFileReadIntoWriters_buffersNoResults() throws {
        // `mien analyze`: a file, writers, no delegate; every result buffered made memory grow with the video.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mien-writers-\(UUID()).mp4").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 3).write(to: path)
        let writer = RecordingWriter()
        let detector = Detector(
            source: .file(path: path), options: try DetectorOptions(), models: try models(), writers: [writer])
        try detector.start()
        detector.wait()
        #expect(writer.results.count == 3)
        #expect(!detector.isFeedingResults)
        let alone = Detector(source: .file(path: path), options: try DetectorOptions(), models: try models())
        try alone.start()
        alone.wait()
        #expect(alone.isFeedingResults, "the for-await idiom after start() still sees every frame")
    }

    @Test func readmeExample_compilesAndRuns() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mien-readme-\(UUID()).mp4").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 15).write(to: path)
        var smiles: [Double] = []
        // --- README example (keep in step with docs/library.md, "The Detector API") ---
        let detector = Detector(
            source: .videoFile(path: path),
            options: try DetectorOptions(
                maximumFaces: 2, metrics: Set<Metric>.allEmotions.union([.expression(.smile)])),
            models: try models())
        try detector.start()
        for await result in detector.results where result.processed {
            for (_, face) in result.faces ?? [:] {
                smiles.append(face.expressions?[.smile] ?? .nan)
                _ = face.emotions?[.joy]
            }
        }
        // --- end of README example ---
        #expect(smiles.count == 15 && smiles.allSatisfy { $0 > 50 })
    }

    @Test func libraryRunExample_streamsTheResults_andWritesTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-run-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("talk.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 12).write(to: clip)
        let csv = folder.appendingPathComponent("talk.csv").path
        var faces: [Int] = []
        // --- docs/library.md, "Using the library" (keep in step) ---
        let options = try DetectorOptions(
            detection: DetectionOptions(faceMode: .small, maximumFaces: 10, minimumConfidence: 0.5),
            metrics: .allEmotions)
        let detector = Detector(source: .file(path: clip), options: options, models: try models())
        let results = ResultStream()
        async let end = detector.run(writers: [results, try CSVWriter(path: csv)])
        for try await result in results where result.processed {
            faces.append(result.faces?.count ?? 0)
        }
        let ended = try await end
        // --- end of the example ---
        #expect(ended == .complete)
        #expect(faces == Array(repeating: 1, count: 12))
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 13, "a header and a row per frame's face")
    }

    @Test func readmeLibraryExample_writesTheFilesThroughTheDetector() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-readme-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("talk.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 12).write(to: clip)
        let csv = folder.appendingPathComponent("talk.csv").path
        let jsonl = folder.appendingPathComponent("talk.jsonl").path
        var outcome = ""
        // --- README example (keep in step with docs/library.md, "Using the library") ---
        let options = try DetectorOptions(
            detection: DetectionOptions(faceMode: .small, maximumFaces: 10, minimumConfidence: 0.5),
            metrics: .allEmotions)
        let detector = Detector(
            source: .file(path: clip),
            options: options, models: try models(),
            writers: [try CSVWriter(path: csv), try JSONLinesWriter(path: jsonl)])
        try detector.start()
        switch detector.wait() {
        case .complete: outcome = "done"
        case .stopped: outcome = "stopped"
        case .failed(let error): outcome = "\(error)"
        }
        // --- end of README example ---
        detector.stop()
        #expect(outcome == "done")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 13, "a header and one row per frame")
        let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
        let results = try lines.map { try JSONDecoder().decode(DetectorResult.self, from: Data($0.utf8)) }
        #expect(results.map(\.frameIndex) == Array(0..<12))
        #expect(results.allSatisfy { ($0.faces?.values.first?.emotions?[.joy] ?? 0) > 50 && $0.input == clip })
    }
}
