import Foundation
import Mien
import MienTesting
import Testing

@Suite("Video files and cameras")
struct VideoAndCameraTests {
    @Test func panAndZoomClip_readsBackWithItsFrameCountRateAndTimestamps() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.mp4")
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 30, framesPerSecond: 15).write(to: path)
        let source = try VideoFileSource(path: path)
        #expect(source.info.kind == .video && source.info.width == 320 && source.info.height == 240)
        #expect(abs((source.info.framesPerSecond ?? 0) - 15) < 0.01)
        #expect(source.info.frameCount == 30)
        #expect(abs((source.info.duration ?? 0) - 2) < 0.01)
        var frames: [Frame] = []
        var errors: [MienError] = []
        source.drain({ frames.append($0) }, onError: { errors.append($0) })
        #expect(errors.isEmpty && frames.count == 30)
        #expect(frames.map(\.index) == Array(0..<30))
        #expect(abs(frames[15].timestamp - 1.0) < 0.01)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// The Detector decodes on fewer threads than FFmpeg would pick (`analysisDecoderThreads`); that may
    /// change the speed, never a pixel or a timestamp.
    @Test func decoderThreads_changeNoPixelAndNoTimestamp() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.mp4")
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 24, framesPerSecond: 15).write(to: path)
        func frames(threads: Int) throws -> [Frame] {
            var frames: [Frame] = []
            var errors: [MienError] = []
            try VideoFileSource(path: path, decoderThreads: threads).drain(
                { frames.append($0) }, onError: { errors.append($0) })
            #expect(errors.isEmpty)
            return frames
        }
        let single = try frames(threads: 1)
        #expect(single.count == 24)
        for threads in [0, 3] {
            let other = try frames(threads: threads)
            #expect(other.map(\.pixels) == single.map(\.pixels))
            #expect(other.map(\.timestamp) == single.map(\.timestamp))
        }
    }

    /// A phone's portrait video is stored as landscape frames plus a rotation in the track header; the
    /// frames must come out upright, at the rotated size, or the faces are lying on their side.
    @Test func rotatedMP4_comesOutUpright() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.mp4")
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 4).write(to: path)
        let upright = try VideoFileSource(path: path)
        guard let reference = try upright.nextFrame() else {
            Issue.record("no frame")
            return
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = Array("tkhd".utf8)
        guard let tkhd = (0..<(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == tag }) else {
            Issue.record("no track header")
            return
        }
        // tkhd version 0: the 3 x 3 matrix starts 40 bytes after the version byte. A quarter turn
        // clockwise is {0, 1, 0; -1, 0, 0; 0, 0, 1} in 16.16 / 2.30 fixed point.
        let matrix: [UInt32] = [0, 0x0001_0000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
        for (k, value) in matrix.enumerated() {
            for b in 0..<4 { bytes[tkhd + 4 + 40 + 4 * k + b] = UInt8(value >> (8 * UInt32(3 - b)) & 0xFF) }
        }
        let rotatedPath = scratch.path("rotated.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: rotatedPath))
        let rotated = try VideoFileSource(path: rotatedPath)
        #expect(rotated.info.width == 240 && rotated.info.height == 320)
        guard let frame = try rotated.nextFrame() else {
            Issue.record("no rotated frame")
            return
        }
        #expect(frame.width == 240 && frame.height == 320)
        // Turned a quarter clockwise: the reference's bottom-left pixel is now the top-left one.
        let (x, y) = (10, reference.height - 11)
        let original = reference.pixels[(y * reference.width + x) * 3]
        let moved = frame.pixels[(x * frame.width + (frame.width - 1 - y)) * 3]
        #expect(abs(Int(original) - Int(moved)) <= 12)
    }

    @Test func everyFrameOfTheClip_hasTheFace() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.mp4")
        try SampleMedia.astronautClip(width: 640, height: 360, frameCount: 20).write(to: path)
        let detector = try BlazeFaceDetector(options: DetectionOptions(), models: repositoryModels())
        var counts: [Int] = []
        try VideoFileSource(path: path).drain({ counts.append(try detector.detect(in: $0).count) }, onError: { _ in })
        #expect(counts == Array(repeating: 1, count: 20))
    }

    @Test func truncatedVideo_keepsTheFramesBeforeTheDamage_andReportsTruncation() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.avi")
        // Motion JPEG in AVI: the index announces 40 frames; cutting the file in half loses the rest.
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 40).write(to: path)
        let full = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = try scratch.write(Array(full.prefix(full.count / 2)), to: "cut.avi")
        var frames = 0
        var errors: [MienError] = []
        do {
            let source = try VideoFileSource(path: cut)
            source.drain({ _ in frames += 1 }, onError: { errors.append($0) })
        } catch let error as MienError {
            errors.append(error)
        }
        #expect(errors.count == 1, "errors: \(errors)")
        #expect(errors.first?.input == cut && errors.first?.code == .truncatedStream)
        // Half the file holds 19 whole Motion JPEG frames: every one of them is read (and none after).
        #expect((18...20).contains(frames), "\(frames) frames read")
    }

    @Test func truncatedMP4_withoutItsIndex_isAClearErrorAtOpen() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.mp4")
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 20).write(to: path)
        let full = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = try scratch.write(Array(full.prefix(full.count / 2)), to: "cut.mp4")
        let error = mienError { _ = try VideoFileSource(path: cut) }
        #expect(error?.code == .corruptData && error?.input == cut, "\(String(describing: error))")
    }

    @Test func textFileNamedMP4_andMissingVideo_failClearly() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let text = try scratch.write(Array("no video here".utf8), to: "fake.mp4")
        #expect(mienError { _ = try VideoFileSource(path: text) }?.input == text)
        #expect(mienError { _ = try VideoFileSource(path: scratch.path("absent.mp4")) }?.code == .notFound)
    }

    @Test func missingCamera_throwsAtOnce_naming_theDevice() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let error = mienError { _ = try InputSource.openCamera("97") }
        #expect(error?.code == .notFound && error?.input == "/dev/video97")
        #expect(clock.now - start < .seconds(2))
        let notACamera = mienError { _ = try CameraSource(device: "/dev/null") }
        #expect(notACamera?.code == .deviceUnavailable && notACamera?.input == "/dev/null")
    }

    @Test func inputSource_picksTheSourceKindFromThePath() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 3).write(to: scratch.path("v.mp4"))
        #expect(try InputSource.open(path: scratch.path("v.mp4")).info.kind == .video)
        #expect(try InputSource.open(path: SampleMedia.astronautPath).info.kind == .image)
        // A folder with no picture is an error naming it and what it skipped, not a run of 0 frames.
        let empty = mienError { _ = try InputSource.open(path: scratch.url.path) }
        #expect(empty?.code == .notFound && empty?.input == scratch.url.path)
        #expect(empty?.message.contains("v.mp4: a video") == true, "\(String(describing: empty))")
        try FileManager.default.copyItem(atPath: SampleMedia.astronautPath, toPath: scratch.path("a.jpg"))
        let folder = try InputSource.open(path: scratch.url.path)
        #expect(folder.info.kind == .imageFolder)
        #expect(folder.info.skipped.map(\.file) == ["v.mp4"])
        let noExtension = scratch.path("picture")
        try FileManager.default.copyItem(atPath: SampleMedia.astronautPath, toPath: noExtension)
        #expect(try InputSource.open(path: noExtension).info.kind == .image)
        let junk = try scratch.write(Array("junk".utf8), to: "junk.bin")
        #expect(mienError { _ = try InputSource.open(path: junk) }?.code == .unsupportedFormat)
    }
}
