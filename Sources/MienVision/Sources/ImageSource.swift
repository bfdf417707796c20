public import MienCore

/// One still image as a one-frame source (timestamp 0, index 0).
public final class ImageSource: FrameSource {
    public let name: String
    public private(set) var info: SourceInfo
    private var frame: Frame?

    /// Decodes the image at `path` at once, so a bad file fails here, at open time.
    public init(path: String, maximumPixels: Int = ImageLimits.maximumPixels) throws {
        name = path
        let decoded = try ImageDecoder.decode(file: path, maximumPixels: maximumPixels)
        frame = decoded
        info = SourceInfo(kind: .image, width: decoded.width, height: decoded.height, frameCount: 1)
    }

    /// Decodes an image held in memory; `name` is how errors and results refer to it.
    public init(bytes: [UInt8], name: String = "<memory>", maximumPixels: Int = ImageLimits.maximumPixels) throws {
        self.name = name
        let decoded = try ImageDecoder.decode(bytes: bytes, input: name, maximumPixels: maximumPixels)
        frame = decoded
        info = SourceInfo(kind: .image, width: decoded.width, height: decoded.height, frameCount: 1)
    }

    public func nextFrame() throws -> Frame? {
        defer { frame = nil }
        return frame
    }
}
