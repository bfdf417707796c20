internal import CMienBridge
import MienCore

/// Owns one `mien_image` (a picture decoded by OpenCV, or a plain JPEG by libjpeg-turbo) and copies it into a
/// `Frame`.
final class DecodedImage {
    private let handle: OpaquePointer

    /// Decodes `bytes`, refusing results over `maximumPixels`.
    /// - Parameter openCVOnly: decode a plain JPEG with OpenCV too instead of libjpeg-turbo's direct path (the
    ///   same pixels; for the test that says so).
    init(bytes: [UInt8], maximumPixels: Int, input: String, openCVOnly: Bool = false) throws {
        var out: OpaquePointer? = nil
        let flags = openCVOnly ? Int32(MIEN_DECODE_OPENCV) : 0
        try bytes.withUnsafeBufferPointer { buffer in
            try bridgeCall(input: input) { error in
                mien_image_decode(buffer.baseAddress, buffer.count, Int64(maximumPixels), flags, &out, error)
            }
        }
        guard let out else { throw MienError(.internalFailure, "decoder returned no image", input: input) }
        handle = out
    }

    deinit { mien_image_free(handle) }

    /// Whether libjpeg-turbo decoded the picture straight into BGR (a plain JPEG), rather than OpenCV.
    var decodedDirectly: Bool { mien_image_decoded_directly(handle) != 0 }

    /// The pixels as a packed BGR frame.
    func frame(timestamp: Double, index: Int) throws -> Frame {
        var width: Int32 = 0
        var height: Int32 = 0
        var stride: Int32 = 0
        mien_image_size(handle, &width, &height, &stride)
        guard let source = mien_image_pixels(handle), width > 0, height > 0 else {
            throw MienError(.internalFailure, "decoded image has no pixels")
        }
        let rowBytes = Int(width) * Frame.channels
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * Int(height)) { buffer, count in
            guard let target = buffer.baseAddress else { return }
            for row in 0..<Int(height) {
                (target + row * rowBytes).update(from: source + row * Int(stride), count: rowBytes)
            }
            count = rowBytes * Int(height)
        }
        return try Frame(width: Int(width), height: Int(height), pixels: pixels, timestamp: timestamp, index: index)
    }
}
