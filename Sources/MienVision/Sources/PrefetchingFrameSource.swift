import Foundation
package import MienCore

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
package final class PrefetchingFrameSource: FrameSource {
    package let name: String
    package let info: SourceInfo
    /// Decoded frames and errors in order; the producer closes it at the end of the source, the
    /// consumer when it is released.
    private let queue: StageQueue<Result<Frame, MienError>>

    /// Starts decoding `source` in the background.
    /// - Parameter capacity: decoded frames kept ready, 1...64.
    package init(_ source: any FrameSource, capacity: Int = 2) {
        name = source.name
        info = source.info
        queue = StageQueue(capacity: min(max(capacity, 1), 64))
        let producer = Producer(source: source, queue: queue)
        let thread = Thread { producer.run() }
        thread.name = "mien.prefetch"
        thread.start()
    }

    deinit { queue.close() }

    package func nextFrame() throws -> Frame? {
        // nil once the producer has closed the queue and everything it queued has been taken.
        try queue.take()?.get()
    }
}

/// Runs on the prefetching thread and is the only user of `source` once started.
private final class Producer: @unchecked Sendable {
    private let source: any FrameSource
    private let queue: StageQueue<Result<Frame, MienError>>

    init(source: any FrameSource, queue: StageQueue<Result<Frame, MienError>>) {
        self.source = source
        self.queue = queue
    }

    func run() {
        // Closing on the way out marks the end for the consumer (after what is queued).
        defer { queue.close() }
        while !queue.isClosed {
            let item: Result<Frame, MienError>
            do {
                guard let frame = try source.nextFrame() else { return }
                item = .success(frame)
            } catch {
                item = .failure(
                    (error as? MienError)?.naming(source.name)
                        ?? MienError(.internalFailure, "\(error)", input: source.name))
            }
            guard queue.put(item) else { return }
            // After an error an image folder goes on with its next image; other sources end.
            if case .failure = item, source.info.kind != .imageFolder { return }
        }
    }
}
