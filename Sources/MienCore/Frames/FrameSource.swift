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
    /// Entries of a folder that are not read (not pictures, sub-folders), with the reason; empty otherwise.
    public var skipped: [SkippedItem]
    /// `frameCount / framesPerSecond`, in seconds.
    public var duration: Double? {
        guard let frameCount, let framesPerSecond, framesPerSecond > 0 else { return nil }
        return Double(frameCount) / framesPerSecond
    }

    public init(
        kind: SourceKind, width: Int? = nil, height: Int? = nil, framesPerSecond: Double? = nil,
        frameCount: Int? = nil, skipped: [SkippedItem] = []
    ) {
        self.kind = kind
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.frameCount = frameCount
        self.skipped = skipped
    }
}

/// An entry of a folder that was not read, and why.
public struct SkippedItem: Sendable, Codable, Equatable {
    /// The entry's name within the folder.
    public var file: String
    /// Why it was not read.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
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

/// A source that can pass over frames more cheaply than reading them (a resumed run goes on after the frames
/// an earlier run analysed).
package protocol SkippingFrameSource: FrameSource {
    /// Goes on after frame `last` (the next frame read is `last + 1`); `timestamp`, frame `last`'s time when
    /// known, lets a video seek instead of decoding every frame before it.
    /// - Returns: how many frames were passed over (fewer than `last + 1` at the end).
    /// - Throws: as `nextFrame()`.
    func skip(through last: Int, at timestamp: Double?) throws -> Int
}
