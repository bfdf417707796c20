import Foundation
import Mien

/// The frames of one live session, handed from its socket to its `Detector`'s reading thread.
///
/// `nextFrame()` blocks until a frame arrives or the feed is closed (then it returns nil and the detector
/// ends). The detector's reading thread takes each frame at once and keeps at most
/// `Detector.liveBufferCapacity` waiting, dropping the oldest (reported unprocessed); this feed only
/// numbers the frames and hands them over.
final class LiveFrameFeed: FrameSource, @unchecked Sendable {
    // State behind `condition`; the reading thread and the socket's task meet here.
    let name: String
    let info = SourceInfo(kind: .pushed)
    private let condition = NSCondition()
    private var frames: [Frame] = []
    private var closed = false
    private var nextIndex = 0

    init(name: String) { self.name = name }

    /// Queues `frame` (numbered here, from 0) and returns its index; nil once closed.
    @discardableResult
    func push(_ frame: Frame) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return nil }
        var frame = frame
        frame.index = nextIndex
        nextIndex += 1
        frames.append(frame)
        condition.signal()
        return frame.index
    }

    /// Ends the feed: the reading thread gets nil after the frames already queued.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func nextFrame() throws -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        while frames.isEmpty && !closed { condition.wait() }
        return frames.isEmpty ? nil : frames.removeFirst()
    }
}
