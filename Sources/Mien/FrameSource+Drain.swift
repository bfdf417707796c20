extension FrameSource {
    /// Reads every frame of the source, handing each to `body`, and reports failures to `onError`
    /// instead of stopping the caller's batch.
    ///
    /// An image folder carries on after a bad image (the error names the file); a video, camera or
    /// single image stops at its first error, since nothing after it can be trusted or read. An error
    /// thrown by `body` for one frame is reported and the next frame is processed.
    /// - Parameters:
    ///   - limit: stop after handing over this many frames (a camera never ends by itself).
    ///   - keepGoing: asked before each frame; false stops (Ctrl-C).
    ///   - body: what is done with each frame.
    ///   - onError: hears each failure, reading or `body`'s, naming the input.
    /// - Returns: the number of frames handed to `body`.
    @discardableResult
    package func drain(
        limit: Int = .max, while keepGoing: () -> Bool = { true }, _ body: (Frame) throws -> Void,
        onError: (MienError) -> Void
    ) -> Int {
        var delivered = 0
        while delivered < limit && keepGoing() {
            let frame: Frame?
            do {
                frame = try nextFrame()
            } catch {
                onError(Self.mienError(error, input: name))
                if info.kind == .imageFolder { continue }
                return delivered
            }
            guard let frame else { return delivered }
            delivered += 1
            do {
                try body(frame)
            } catch {
                onError(Self.mienError(error, input: "\(name) frame \(frame.index)"))
            }
        }
        return delivered
    }

    private static func mienError(_ error: any Error, input: String) -> MienError {
        (error as? MienError)?.naming(input) ?? MienError(.internalFailure, "\(error)", input: input)
    }
}
