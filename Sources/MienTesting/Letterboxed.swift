import Mien

/// Re-encodes a video at another size, letterboxed (aspect kept, centred, black bars), to make
/// benchmark clips such as a 1280 x 720 version of a 512 x 512 talking head.
public enum Letterboxed {
    /// Writes `input` resized into `width` x `height` to `output`, at most `maximumFrames` frames.
    /// - Returns: the number of frames written.
    @discardableResult
    public static func transcode(input: String, output: String, width: Int, height: Int, maximumFrames: Int = .max)
        throws -> Int
    {
        let source = try VideoFileSource(path: input)
        guard let sourceWidth = source.info.width, let sourceHeight = source.info.height else {
            throw MienError(.corruptData, "video reports no frame size", input: input)
        }
        let box = Letterbox(
            region: Rect(x: 0, y: 0, width: Double(sourceWidth), height: Double(sourceHeight)), width: width,
            height: height)
        let writer = try VideoWriter(
            path: output, width: width, height: height, framesPerSecond: source.info.framesPerSecond ?? 30)
        var written = 0
        while written < maximumFrames, let frame = try source.nextFrame() {
            try writer.write(frame.warped(by: box.tensorFromFrame, width: width, height: height))
            written += 1
        }
        return written
    }
}
