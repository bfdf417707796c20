/// One picture to analyse: 8-bit BGR pixels, rows packed (`width * 3` bytes each), top-left origin,
/// plus where it sits in time.
///
/// A `Frame` is a value: copying one shares its pixel storage until either copy is mutated.
public struct Frame: Sendable {
    /// Bytes per pixel: blue, green, red.
    public static let channels = 3

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 3` bytes, BGR, row after row.
    public let pixels: [UInt8]
    /// Seconds since the start of the source (0 for a still image; presentation time for video frames;
    /// the caller's clock for pushed frames).
    public var timestamp: Double
    /// Position in the source, from 0.
    public var index: Int
    /// The picture's file name within its folder, for a frame read from a folder of pictures (the row's
    /// link back to the file); nil otherwise.
    public var file: String?

    /// Wraps BGR pixels.
    /// - Throws: `MienError.Code.invalidArgument` when the size is not positive or `pixels` has not
    ///   exactly `width * height * 3` bytes.
    public init(width: Int, height: Int, pixels: [UInt8], timestamp: Double = 0, index: Int = 0) throws {
        guard width > 0, height > 0 else {
            throw MienError(.invalidArgument, "frame size must be positive, got \(width)x\(height)")
        }
        guard pixels.count == width * height * Frame.channels else {
            throw MienError(
                .invalidArgument,
                "a \(width)x\(height) BGR frame needs \(width * height * Frame.channels) bytes, got \(pixels.count)")
        }
        guard timestamp.isFinite else { throw MienError(.invalidArgument, "frame timestamp must be finite") }
        self.width = width
        self.height = height
        self.pixels = pixels
        self.timestamp = timestamp
        self.index = index
    }

    /// Bytes from one row to the next.
    public var stride: Int { width * Frame.channels }

    /// The frame's extent in pixels, `(0, 0, width, height)`.
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width), height: Double(height)) }
}
