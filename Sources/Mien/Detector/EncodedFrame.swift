import Foundation

/// A frame not decoded yet (a JPEG received from a socket), given to `Detector.push(_:arrival:)`.
///
/// The detector decodes it when the analysis takes it from the inbox, so a frame dropped for a newer one
/// (`.liveStream`) is never decoded: a sender faster than the analysis costs no decoding, and the inbox is
/// the one place where live frames wait.
public struct EncodedFrame: Sendable {
    /// Seconds on the sender's clock (checked on arrival, before decoding).
    public var timestamp: Double
    /// Set by the inbox.
    var index = 0
    private let decoder: @Sendable () throws -> Frame

    /// A frame decoded by `decode` when the analysis takes it.
    /// - Parameters:
    ///   - timestamp: seconds on the sender's clock.
    ///   - decode: makes the pixels; its frame's timestamp and index are replaced by this one's.
    public init(timestamp: Double, decode: @escaping @Sendable () throws -> Frame) {
        self.timestamp = timestamp
        decoder = decode
    }

    /// An encoded picture (any format `ImageDecoder` reads), decoded with `maximumPixels` as the limit.
    /// - Parameters:
    ///   - bytes: the encoded picture, as received.
    ///   - timestamp: seconds on the sender's clock.
    ///   - name: how a decoding error names the frame.
    ///   - maximumPixels: the largest width × height decoded; a bigger picture is refused before decoding.
    public init(bytes: [UInt8], timestamp: Double, name: String, maximumPixels: Int = ImageLimits.maximumPixels) {
        self.init(timestamp: timestamp) {
            try ImageDecoder.decode(bytes: bytes, input: name, maximumPixels: maximumPixels)
        }
    }

    /// The decoded frame, with this one's timestamp and index.
    func decode() throws -> Frame {
        var frame = try decoder()
        frame.timestamp = timestamp
        frame.index = index
        return frame
    }
}
