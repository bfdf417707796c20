import Foundation
import Mien
import MienTesting
import Testing

@Suite("H.264 encoding with FFmpeg")
struct VideoEncoderTests {
    func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mien-encoder-\(UUID())-\(name)").path
    }

    @Test func annotatedVideo_decodesBackWithEveryFrame_andItsTimestamps() throws {
        let path = scratch("clip.mp4")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clip = try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 20)
        let frames = try (0..<20).map { try clip.frame(at: $0) }
        let writer = try VideoWriter(path: path, width: 320, height: 240, framesPerSecond: 10, speed: .fastest)
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        let source = try VideoFileSource(path: path)
        #expect(source.info.width == 320 && source.info.height == 240 && source.info.frameCount == 20)
        var read: [Frame] = []
        while let frame = try source.nextFrame() { read.append(frame) }
        #expect(read.count == 20)
        #expect(abs((read.last?.timestamp ?? 0) - 1.9) < 0.01)
        // Still the same picture: the mean absolute difference of the first frame is small.
        let first = try #require(read.first)
        let difference = zip(first.pixels, frames[0].pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(first.pixels.count) < 6)
    }

    @Test func oddSizes_loseTheirLastColumnAndRow_andTinyOnesAreRefused() throws {
        let path = scratch("odd.mkv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let frame = try Frame(width: 65, height: 49, pixels: [UInt8](repeating: 90, count: 65 * 49 * 3))
        let encoder = try VideoEncoder(path: path, width: 65, height: 49, framesPerSecond: 25, speed: .balanced)
        for _ in 0..<3 { try encoder.write(frame) }
        #expect(throws: MienError.self) {
            try encoder.write(try Frame(width: 64, height: 48, pixels: [UInt8](repeating: 0, count: 64 * 48 * 3)))
        }
        try encoder.finish()
        #expect(throws: MienError.self) { try encoder.write(frame) }
        let source = try VideoFileSource(path: path)
        #expect(source.info.width == 64 && source.info.height == 48)
        #expect(throws: MienError.self) {
            _ = try VideoEncoder(path: scratch("tiny.mp4"), width: 1, height: 1, framesPerSecond: 25, speed: .fastest)
        }
        #expect(throws: MienError.self) {
            _ = try VideoEncoder(
                path: "/no/such/folder/clip.mp4", width: 64, height: 48, framesPerSecond: 25, speed: .fastest)
        }
    }
}
