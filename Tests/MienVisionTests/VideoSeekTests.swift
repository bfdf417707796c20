import Foundation
import MienCore
import MienTesting
import MienVision
import Testing

/// A resumed video goes on after frame n by seeking to the key frame before it (`VideoFileSource.skip`): the
/// frames after n must be the ones a reading from the first frame gives, pixel for pixel, with the same
/// indices and times; where the frame is not found at its time, the file is decoded from its start instead.
@Suite("Video seeking for a resumed run")
struct VideoSeekTests {
    @Test func skipThroughAFrame_givesTheFramesThatFollowIt_pixelForPixel() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("clip.mp4")
        // 600 frames: x264 puts a key frame every 250 at most, so targets fall in three key-frame intervals.
        try SampleMedia.astronautClip(width: 160, height: 96, frameCount: 600, framesPerSecond: 30).write(to: path)
        let reference = try VideoFileSource(path: path)
        var frames: [Frame] = []
        while let frame = try reference.nextFrame() { frames.append(frame) }
        #expect(frames.count == 600)
        for last in [0, 1, 249, 250, 251, 420, 597] {
            let source = try VideoFileSource(path: path)
            #expect(try source.skip(through: last, at: frames[last].timestamp) == last + 1)
            #expect(source.seekedLastSkip, "frame \(last) was not found by seeking")
            for expected in frames[(last + 1)...].prefix(2) {
                let frame = try #require(try source.nextFrame())
                #expect(frame.index == expected.index && frame.timestamp == expected.timestamp)
                #expect(frame.pixels == expected.pixels, "frame \(expected.index) after a skip through \(last)")
            }
        }
        // A time no frame has: decoded from the start instead, to the same frames.
        let source = try VideoFileSource(path: path)
        #expect(try source.skip(through: 300, at: frames[300].timestamp + 0.001) == 301)
        #expect(!source.seekedLastSkip)
        let next = try #require(try source.nextFrame())
        #expect(next.index == 301 && next.timestamp == frames[301].timestamp && next.pixels == frames[301].pixels)
    }
}
