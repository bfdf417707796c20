/// One run's results as an async sequence: a `ResultWriter` to pass to `Detector.run(writers:)` and iterate
/// from another task.
///
/// ```swift
/// let results = ResultStream()
/// async let end = detector.run(writers: [results])
/// for try await result in results { print(result.frameIndex, result.faces?.count ?? 0) }
/// _ = try await end
/// ```
///
/// It ends when the run ends: normally after `.complete` or `.stopped`, throwing the error after `.failed` or a
/// writer's failure. Iterate it from one task. Results wait in memory until they are read (every one by
/// default, so none is lost to a slow reader; `keepingNewest` bounds that for a live source whose old results
/// are worth nothing).
public final class ResultStream: ResultWriter, AsyncSequence, Sendable {
    private let stream: AsyncThrowingStream<DetectorResult, any Error>
    private let continuation: AsyncThrowingStream<DetectorResult, any Error>.Continuation

    /// - Parameter keepingNewest: at most this many results wait to be read, the oldest dropped beyond it
    ///   (nil: every result waits).
    public init(keepingNewest: Int? = nil) {
        (stream, continuation) = AsyncThrowingStream.makeStream(
            bufferingPolicy: keepingNewest.map { .bufferingNewest(Swift.max(1, $0)) } ?? .unbounded)
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<DetectorResult, any Error>.Iterator {
        stream.makeAsyncIterator()
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws { continuation.yield(result) }

    public func finish(_ end: InputEnd) throws {
        if let error = end.error { continuation.finish(throwing: error) } else { continuation.finish() }
    }

    public func fail(_ error: MienError) { continuation.finish(throwing: error) }
}
