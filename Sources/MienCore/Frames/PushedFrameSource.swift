/// Frames the caller hands over one by one, with their own timestamps (Affdex's `processImage:atTime:`).
///
/// `push(_:)` checks that timestamps strictly increase, so tracking and smoothing never see time run
/// backwards; `nextFrame()` returns the pushed frames in order and nil when none is waiting.
public final class PushedFrameSource: FrameSource {
    public let name: String
    public let info = SourceInfo(kind: .pushed)
    private var queue: [Frame] = []
    private var head = 0
    private var lastTimestamp: Double?
    private var count = 0

    public init(name: String = "<pushed frames>") { self.name = name }

    /// Queues `frame`; its `index` is set to its position in the stream.
    /// - Throws: `.nonMonotonicTimestamp` when `frame.timestamp` is not after the previous frame's.
    public func push(_ frame: Frame) throws {
        if let lastTimestamp, frame.timestamp <= lastTimestamp {
            throw MienError(
                .nonMonotonicTimestamp,
                "frame timestamp \(frame.timestamp) s is not after the previous frame's \(lastTimestamp) s", input: name
            )
        }
        lastTimestamp = frame.timestamp
        var indexed = frame
        indexed.index = count
        count += 1
        queue.append(indexed)
    }

    public func nextFrame() throws -> Frame? {
        guard head < queue.count else { return nil }
        let frame = queue[head]
        head += 1
        if head == queue.count {  // drained: release the storage rather than letting it grow
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return frame
    }
}
