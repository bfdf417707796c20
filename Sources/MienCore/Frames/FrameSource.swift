/// What kind of input a `FrameSource` reads.
public enum SourceKind: String, Sendable, Codable {
    /// One still image (a file or bytes in memory).
    case image
    /// A folder of still images, read in name order.
    case imageFolder
    /// A video file.
    case video
    /// A live camera.
    case camera
    /// Frames the caller pushes with their own timestamps.
    case pushed
}

/// What a source knows about itself before the first frame.
///
/// Unknown values are nil.
public struct SourceInfo: Sendable, Codable, Equatable {
    public var kind: SourceKind
    /// Frame width and height in pixels, when every frame shares them (video, camera).
    public var width: Int?
    public var height: Int?
    /// Nominal frames per second (video container or camera).
    public var framesPerSecond: Double?
    /// Frames the container announces (video) or the number of images (folder).
    public var frameCount: Int?
    /// `frameCount / framesPerSecond`, in seconds.
    public var duration: Double? {
        guard let frameCount, let framesPerSecond, framesPerSecond > 0 else { return nil }
        return Double(frameCount) / framesPerSecond
    }

    public init(
        kind: SourceKind, width: Int? = nil, height: Int? = nil, framesPerSecond: Double? = nil,
        frameCount: Int? = nil
    ) {
        self.kind = kind
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.frameCount = frameCount
    }
}

/// A stream of frames from one input.
///
/// - Important: A source is not thread-safe; one task reads it. `nextFrame()` returns nil at the end.
///   A source made of many items (a folder) reports a bad item by throwing from `nextFrame()` and then
///   carries on with the next item on the following call, so one corrupt file does not end the folder.
public protocol FrameSource: AnyObject {
    /// The file, folder or device this source reads, as named in errors.
    var name: String { get }
    /// What the source announced when it was opened.
    var info: SourceInfo { get }
    /// The next frame, or nil after the last one.
    /// - Throws: `MienError` naming the input (and the item, for folders).
    func nextFrame() throws -> Frame?
}
