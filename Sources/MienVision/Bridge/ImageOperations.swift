internal import CMienBridge
public import MienCore

extension Frame {
    /// A new `width` x `height` frame whose pixel (x', y') comes from this frame at
    /// `transform⁻¹(x', y')` (bilinear), with `border` (0...255 grey) outside this frame.
    /// - Parameter transform: maps this frame's pixels to the new frame's pixels.
    public func warped(by transform: AffineTransform, width: Int, height: Int, border: UInt8 = 0) throws -> Frame {
        guard width > 0, height > 0 else { throw MienError(.invalidArgument, "warp size must be positive") }
        let matrix = transform.rowMajor
        let capacity = width * height * Frame.channels
        var failure: (any Error)? = nil
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { target, count in
            do {
                try pixels.withUnsafeBufferPointer { source in
                    try matrix.withUnsafeBufferPointer { m in
                        try bridgeCall(input: nil) {
                            mien_image_warp_affine(
                                source.baseAddress, Int32(self.width), Int32(self.height), Int32(self.stride),
                                m.baseAddress, target.baseAddress, Int32(width), Int32(height), border, $0)
                        }
                    }
                }
                count = capacity
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return try Frame(width: width, height: height, pixels: output, timestamp: timestamp, index: index)
    }

    /// Encodes the frame to an image file; the extension picks the codec (.png, .jpg, .bmp, .webp).
    public func write(toImageFile path: String) throws {
        try pixels.withUnsafeBufferPointer { buffer in
            try bridgeCall(input: path) {
                mien_image_write(path, buffer.baseAddress, Int32(width), Int32(height), Int32(stride), $0)
            }
        }
    }
}
