import Foundation
public import MienCore

/// Decodes the frames of another source ahead of time on a thread of its own, so that decoding frame
/// n + 1 overlaps the analysis of frame n.
///
/// On a 2-core machine this is the difference between paying decode + analysis per frame and paying
/// the larger of the two. At most `capacity` decoded frames wait in memory (default 2: one being
/// analysed, one ready), so a fast decoder never runs away with memory on a long video.
///
/// Errors are delivered in order, at the frame where they happened. After an error an image folder
/// goes on with its next image, as `nextFrame()` of the folder itself does; other sources end.
///
/// - Important: The wrapped source is read only by the prefetching thread from then on; do not use it
///   directly. The thread ends at the end of the source or when this object is released.
public final class PrefetchingFrameSource: FrameSource {
    public let name: String
    public let info: SourceInfo
    private let state: SharedState

    /// Starts decoding `source` in the background.
    /// - Parameter capacity: decoded frames kept ready, 1...64.
    public init(_ source: any FrameSource, capacity: Int = 2) {
        name = source.name
        info = source.info
        state = SharedState(capacity: min(max(capacity, 1), 64))
        let producer = Producer(source: source, state: state)
        let thread = Thread { producer.run() }
        thread.name = "mien.prefetch"
        thread.start()
    }

    deinit { state.cancel() }

    public func nextFrame() throws -> Frame? {
        try state.take().get()
    }
}

/// The buffer both threads share; every access holds `condition`'s lock.
private final class SharedState: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Result<Frame?, MienError>] = []
    private var finished = false
    private var cancelled = false
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Producer side: waits for room; returns false when the consumer has gone away.
    func put(_ item: Result<Frame?, MienError>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        if case .success(nil) = item { finished = true }
        condition.broadcast()
        return true
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Consumer side: waits for the next item; after the end, keeps answering nil.
    func take() -> Result<Frame?, MienError> {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !finished { condition.wait() }
        guard !items.isEmpty else { return .success(nil) }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Runs on the prefetching thread and is the only user of `source` once started.
private final class Producer: @unchecked Sendable {
    private let source: any FrameSource
    private let state: SharedState

    init(source: any FrameSource, state: SharedState) {
        self.source = source
        self.state = state
    }

    func run() {
        while !state.isCancelled {
            let item: Result<Frame?, MienError>
            do {
                item = .success(try source.nextFrame())
            } catch {
                item = .failure(
                    (error as? MienError)?.naming(source.name)
                        ?? MienError(.internalFailure, "\(error)", input: source.name))
            }
            guard state.put(item) else { return }
            switch item {
            case .success(nil): return
            case .failure where source.info.kind != .imageFolder:
                _ = state.put(.success(nil))
                return
            default: continue
            }
        }
    }
}
