public import Mien

/// A synthetic video made from one still: the camera pans and zooms smoothly across the picture.
///
/// Used to exercise the video path on real pixels (the bundled public-domain portrait) without shipping a
/// video file, and to make benchmark clips at any resolution. Frames are made on demand, so a long clip
/// costs no memory.
public struct PanAndZoomClip: Sendable {
    /// The picture the camera looks at.
    public let still: Frame
    /// Output size in pixels.
    public let width: Int
    public let height: Int
    public let frameCount: Int
    public let framesPerSecond: Double
    /// Centre of view at the first and last frame, in still pixels.
    public var startCenter: Point
    public var endCenter: Point
    /// Zoom at the first and last frame, relative to "still just covers the output".
    public var startZoom: Double
    public var endZoom: Double

    /// A clip that starts centred on `center` and drifts right by 5 % of the still's width while zooming
    /// from 1.0 to 1.2, which keeps a face near `center` in view throughout.
    public init(still: Frame, width: Int, height: Int, frameCount: Int, framesPerSecond: Double, center: Point) {
        self.still = still
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.framesPerSecond = framesPerSecond
        startCenter = center
        endCenter = Point(x: center.x + Double(still.width) * 0.05, y: center.y)
        startZoom = 1.0
        endZoom = 1.2
    }

    /// The transform from still pixels to output pixels at frame `index`.
    package func transform(at index: Int) -> AffineTransform {
        let t = frameCount > 1 ? Double(index) / Double(frameCount - 1) : 0
        let cover = max(Double(width) / Double(still.width), Double(height) / Double(still.height))
        let scale = cover * (startZoom + (endZoom - startZoom) * t)
        let cx = startCenter.x + (endCenter.x - startCenter.x) * t
        let cy = startCenter.y + (endCenter.y - startCenter.y) * t
        return .scale(scale, thenTranslate: Double(width) / 2 - cx * scale, Double(height) / 2 - cy * scale)
    }

    /// Frame `index` (0..<frameCount), with its timestamp.
    public func frame(at index: Int) throws -> Frame {
        var frame = try still.warped(by: transform(at: index), width: width, height: height)
        frame.index = index
        frame.timestamp = Double(index) / framesPerSecond
        return frame
    }

    /// Encodes the whole clip to `path` (MPEG-4 for .mp4, Motion JPEG for .avi).
    public func write(to path: String) throws {
        let writer = try VideoWriter(path: path, width: width, height: height, framesPerSecond: framesPerSecond)
        for index in 0..<frameCount { try writer.write(frame(at: index)) }
    }
}
