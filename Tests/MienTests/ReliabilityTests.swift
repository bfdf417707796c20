import Foundation
import MienTesting
import Synchronization
import Testing

@testable import Mien

/// A camera that is unplugged after `count` frames: its next read fails as V4L2 does.
private final class UnpluggedCamera: FrameSource {
    let name = "/dev/video9"
    let info = SourceInfo(kind: .camera, width: 320, height: 240, framesPerSecond: 30)
    private let clip: PanAndZoomClip
    private var next = 0
    private let count: Int
    init(count: Int) throws {
        self.count = count
        clip = try SampleMedia.astronautClip(width: 320, height: 240, frameCount: count)
    }
    func nextFrame() throws -> Frame? {
        guard next < count else {
            throw MienError(.deviceUnavailable, "the device stopped delivering frames (unplugged?)", input: name)
        }
        defer { next += 1 }
        // Real time, so the rate cap lets frames through and none is dropped unseen.
        Thread.sleep(forTimeInterval: 1.0 / 30)
        return try clip.frame(at: next)
    }
}

/// Collects what a detector reports.
private final class Collector: DetectorDelegate, Sendable {
    let results = Mutex<[DetectorResult]>([])
    let failures = Mutex<[MienError]>([])
    func detector(_ detector: Detector, didProcess result: DetectorResult) { results.withLock { $0.append(result) } }
    func detector(_ detector: Detector, didFail error: MienError) { failures.withLock { $0.append(error) } }
}

private func models() throws -> ModelStore {
    try ModelStore(directory: SampleMedia.repositoryRoot.appendingPathComponent("Models"))
}

@Suite("Reliability", .timeLimit(.minutes(10)))
struct ReliabilityTests {
    @Test func cameraUnpluggedMidStream_reportsTheDevice_andKeepsTheFramesBefore() async throws {
        let detector = Detector(
            source: .liveSource(name: "/dev/video9", open: { try UnpluggedCamera(count: 12) }),
            options: try DetectorOptions(maxProcessRate: 30), models: try models())
        let collector = Collector()
        detector.delegate = collector
        let stream = detector.results
        try detector.start()
        var streamed = 0
        for await _ in stream { streamed += 1 }
        detector.stop()
        let failures = collector.failures.withLock { $0 }
        #expect(failures.count == 1)
        #expect(failures.first?.code == .deviceUnavailable && failures.first?.input == "/dev/video9")
        let results = collector.results.withLock { $0 }
        #expect(results.map(\.frameIndex) == Array(0..<12), "every frame before the unplug is reported")
        #expect(streamed == 12)
        #expect(results.filter(\.processed).count >= 6)
    }

    @Test func fileDisappearingMidRun_failsAlone_andTheFolderCarriesOn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["a.jpg", "b.jpg", "c.jpg"] {
            try FileManager.default.copyItem(
                atPath: SampleMedia.astronautPath, toPath: folder.appendingPathComponent(name).path)
        }
        let source = try ImageFolderSource(path: folder.path)
        var read: [Int] = []
        var errors: [MienError] = []
        source.drain(
            { frame in
                read.append(frame.index)
                // After the first picture is read, the second is deleted (a sync client, a user).
                if frame.index == 0 { try FileManager.default.removeItem(at: folder.appendingPathComponent("b.jpg")) }
            }, onError: { errors.append($0) })
        #expect(read == [0, 2])
        #expect(errors.count == 1)
        #expect(errors.first?.code == .notFound && errors.first?.input?.hasSuffix("b.jpg") == true, "\(errors)")
    }

    /// Several tasks at once: each with its own detector on shared models, plus all of them pushing into
    /// one shared detector (run under TSan by `make sanitize`).
    @Test func detectorsDrivenFromSeveralTasksAtOnce_stayConsistent() async throws {
        let store = try models()
        let clip = try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 8)
        let frames = try (0..<8).map { try clip.frame(at: $0) }
        let options = try DetectorOptions(metrics: .all)
        // What each frame gives on its own, one at a time.
        let alone = Detector(source: .discreteImages, options: options, models: store)
        try alone.start()
        let reference = try frames.map { try alone.process($0).faces?[0] }
        alone.stop()
        let shared = Detector(source: .discreteImages, options: options, models: store)
        try shared.start()
        let perTask = try await withThrowingTaskGroup(of: ([Int], [(Int, DetectorResult)]).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let own = Detector(
                        source: .pushedFrames, options: try DetectorOptions(metrics: .allExpressions), models: store)
                    try own.start()
                    defer { own.stop() }
                    var counts: [Int] = []
                    var sharedResults: [(Int, DetectorResult)] = []
                    for (index, frame) in frames.enumerated() {
                        counts.append(try own.process(frame).faces?.count ?? -1)
                        sharedResults.append((index, try shared.process(frame)))
                    }
                    return (counts, sharedResults)
                }
            }
            var all: [([Int], [(Int, DetectorResult)])] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        shared.stop()
        #expect(perTask.count == 4)
        let counts = perTask.map(\.0)
        #expect(counts.allSatisfy { $0 == counts[0] }, "the same frames give the same faces in every task")
        #expect(counts[0].allSatisfy { $0 == 1 })
        // The shared detector: every call numbered once, and each frame measured as it is alone.
        let sharedResults = perTask.flatMap(\.1)
        #expect(Set(sharedResults.map(\.1.frameIndex)) == Set(0..<32))
        for (index, result) in sharedResults {
            #expect(result.faces?.count == 1 && result.faces?[0] == reference[index], "frame \(index)")
        }
    }

    @Test func damagedPictures_leaveNoFileDescriptorOpen() throws {
        /// The process's open descriptors, and how many of them are OpenCV's temporary files (the HDR decoder
        /// of OpenCV 4.6 kept one open per damaged picture; OpenCV names them `__opencv_temp.XXXXXX`).
        func openDescriptors() throws -> (all: Int, openCVTemporary: Int) {
            let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
            let temporary = names.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?
                    .contains("__opencv_temp") == true
            }
            return (names.count, temporary.count)
        }
        let junk = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let inputs: [[UInt8]] = [
            Array("#?RADIANCE\n".utf8) + junk, [0x76, 0x2F, 0x31, 0x01] + junk, [0xFF, 0x4F, 0xFF, 0x51] + junk,
            [0x49, 0x49, 0x2A, 0x00] + junk, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + junk,
        ]
        let attempts = 50
        let before = try openDescriptors()
        for bytes in inputs {
            for _ in 0..<attempts { _ = try? ImageDecoder.decode(bytes: bytes) }
        }
        let after = try openDescriptors()
        #expect(after.openCVTemporary <= before.openCVTemporary, "a damaged picture left its temporary file open")
        // Other tests run beside this one and open and close descriptors of their own, so the count of all
        // of them is only held to less than one per damaged picture (a leak in any decoder leaves 50 or more).
        #expect(after.all - before.all < attempts, "damaged pictures must not leak descriptors: \(before) → \(after)")
    }
}
