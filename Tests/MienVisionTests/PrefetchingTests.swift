import Foundation
import Mien
import MienTesting
import Testing

/// A source that yields `count` tiny frames and throws at the indices in `failures`.
private final class ScriptedSource: FrameSource {
    let name = "scripted"
    let info: SourceInfo
    private let count: Int
    private let failures: Set<Int>
    private var position = 0

    init(kind: SourceKind, count: Int, failures: Set<Int>) {
        info = SourceInfo(kind: kind, frameCount: count)
        self.count = count
        self.failures = failures
    }

    func nextFrame() throws -> Frame? {
        guard position < count else { return nil }
        defer { position += 1 }
        if failures.contains(position) { throw MienError(.corruptData, "bad item \(position)") }
        return try Frame(
            width: 1, height: 1, pixels: [UInt8(position), 0, 0], timestamp: Double(position), index: position)
    }
}

@Suite("Prefetching frame source")
struct PrefetchingTests {
    @Test func deliversEveryFrameInOrder_thenNil() throws {
        let source = PrefetchingFrameSource(ScriptedSource(kind: .video, count: 50, failures: []), capacity: 2)
        var indices: [Int] = []
        while let frame = try source.nextFrame() { indices.append(frame.index) }
        #expect(indices == Array(0..<50))
        #expect(try source.nextFrame() == nil)
    }

    @Test func folderErrors_arriveInPlace_andTheFolderGoesOn() throws {
        let source = PrefetchingFrameSource(ScriptedSource(kind: .imageFolder, count: 5, failures: [1, 3]))
        var frames: [Int] = []
        var errors: [String] = []
        source.drain({ frames.append($0.index) }, onError: { errors.append($0.message) })
        #expect(frames == [0, 2, 4])
        #expect(errors == ["bad item 1", "bad item 3"])
    }

    @Test func videoError_endsTheStream_afterTheFramesBeforeIt() throws {
        let source = PrefetchingFrameSource(ScriptedSource(kind: .video, count: 10, failures: [4]))
        var frames: [Int] = []
        var errors: [MienError] = []
        source.drain({ frames.append($0.index) }, onError: { errors.append($0) })
        #expect(frames == [0, 1, 2, 3])
        #expect(errors.count == 1 && errors.first?.input == "scripted")
    }

    @Test func releasingItEarly_stopsTheThread_withoutReadingEverything() throws {
        let scripted = ScriptedSource(kind: .video, count: 1_000_000, failures: [])
        do {
            let source = PrefetchingFrameSource(scripted, capacity: 2)
            _ = try source.nextFrame()
        }
        Thread.sleep(forTimeInterval: 0.05)
        // With a bounded buffer the thread can be at most a few frames ahead when it is told to stop.
        var remaining = 0
        while remaining < 10, (try? scripted.nextFrame()) != nil { remaining += 1 }
        #expect(remaining == 10)
    }
}
