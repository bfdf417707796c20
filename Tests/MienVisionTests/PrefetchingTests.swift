import Foundation
import Mien
import MienTesting
import Synchronization
import Testing

/// A source that yields `count` tiny frames and throws at the indices in `failures`.
private final class ScriptedSource: FrameSource, @unchecked Sendable {
    // Read by one thread at a time: the prefetching thread, then (for `reads`) the test after it ended.
    let name = "scripted"
    let info: SourceInfo
    private let count: Int
    private let failures: Set<Int>
    private var position = 0
    /// How many frames the last released source had read (set as it is freed).
    static let lastReads = Mutex(0)

    deinit { Self.lastReads.withLock { $0 = position } }

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

    // Ten minutes, as every suite: the limit catches a hang; on 2 cores other suites can hold both cooperative threads for
    // over a minute before this test runs (its own wait is 10 s).
    @Test(.timeLimit(.minutes(10)))
    func releasingItEarly_endsTheReadingThread_afterAFewFramesAtMost() throws {
        weak var released: ScriptedSource?
        do {
            let scripted = ScriptedSource(kind: .video, count: 1_000_000, failures: [])
            released = scripted
            let source = PrefetchingFrameSource(scripted, capacity: 2)
            _ = try source.nextFrame()
        }
        // The reading thread holds the scripted source until it ends: once it is gone, the thread is.
        let deadline = ContinuousClock.now + .seconds(10)
        while released != nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(released == nil, "the reading thread is still running (or blocked) after its source was released")
        // With a bounded buffer it was at most a few frames ahead when told to stop.
        #expect(ScriptedSource.lastReads.withLock { $0 } <= 1 + 2 + 2)
    }
}
