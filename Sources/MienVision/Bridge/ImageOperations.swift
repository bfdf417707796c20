internal import CMienBridge
public import MienCore

extension Frame {
    /// A new `width` x `height` frame whose pixel (x', y') comes from this frame at
    /// `transform⁻¹(x', y')` (bilinear), with `border` (0...255 grey) outside this frame.
    /// - Parameter transform: maps this frame's pixels to the new frame's pixels.
    package func warped(by transform: AffineTransform, width: Int, height: Int, border: UInt8 = 0) throws -> Frame {
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

    /// A copy of the frame with `shapes` drawn on it (anti-aliased, in order).
    package func drawing(_ shapes: [Shape]) throws -> Frame {
        var output = pixels
        // Text pointers must outlive the call: keep every string as a C array until it returns.
        let texts: [[CChar]] = shapes.map {
            if case .text(let string, _, _, _, _) = $0 { return Array(string.utf8CString) }
            return [0]
        }
        try texts.withUnsafeBufferPointerArray { textPointers in
            let bridged = zip(shapes, textPointers).map { shape, text -> mien_shape in
                switch shape {
                case .rectangle(let r, let c, let thickness, let filled):
                    mien_shape(
                        kind: Int32(MIEN_SHAPE_RECTANGLE.rawValue), x0: r.x, y0: r.y, x1: r.x + r.width,
                        y1: r.y + r.height,
                        blue: c.blue, green: c.green, red: c.red, thickness: filled ? -1 : Int32(thickness), text: nil)
                case .line(let a, let b, let c, let thickness):
                    mien_shape(
                        kind: Int32(MIEN_SHAPE_LINE.rawValue), x0: a.x, y0: a.y, x1: b.x, y1: b.y, blue: c.blue,
                        green: c.green, red: c.red, thickness: Int32(thickness), text: nil)
                case .circle(let centre, let radius, let c, let filled):
                    mien_shape(
                        kind: Int32(MIEN_SHAPE_CIRCLE.rawValue), x0: centre.x, y0: centre.y, x1: radius, y1: 0,
                        blue: c.blue, green: c.green, red: c.red, thickness: filled ? -1 : 1, text: nil)
                case .text(_, let at, let scale, let c, let thickness):
                    mien_shape(
                        kind: Int32(MIEN_SHAPE_TEXT.rawValue), x0: at.x, y0: at.y, x1: scale, y1: 0, blue: c.blue,
                        green: c.green, red: c.red, thickness: Int32(thickness), text: text)
                }
            }
            try output.withUnsafeMutableBufferPointer { buffer in
                try bridged.withUnsafeBufferPointer { list in
                    try bridgeCall(input: nil) {
                        mien_image_draw(
                            buffer.baseAddress, Int32(width), Int32(height), Int32(stride), list.baseAddress,
                            Int32(list.count), $0)
                    }
                }
            }
        }
        return try Frame(width: width, height: height, pixels: output, timestamp: timestamp, index: index)
    }
}

extension Array where Element == [CChar] {
    /// Calls `body` with a pointer to each element's storage, all valid for the duration of the call.
    fileprivate func withUnsafeBufferPointerArray<R>(_ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        return try withPointers(index: 0, collected: &pointers, body)
    }

    private func withPointers<R>(
        index: Int, collected: inout [UnsafePointer<CChar>?], _ body: ([UnsafePointer<CChar>?]) throws -> R
    ) rethrows -> R {
        guard index < count else { return try body(collected) }
        return try self[index].withUnsafeBufferPointer { buffer in
            collected.append(buffer.baseAddress)
            return try withPointers(index: index + 1, collected: &collected, body)
        }
    }
}

/// Image codecs `Frame.encoded(as:)` can write in memory.
public enum ImageEncoding: Sendable, Equatable {
    /// Lossless PNG.
    case png
    /// JPEG at `quality` 1...100.
    case jpeg(quality: Int)
}

extension Frame {
    /// The frame encoded in memory (for example a thumbnail embedded in an HTML report).
    public func encoded(as encoding: ImageEncoding) throws -> [UInt8] {
        let (suffix, quality): (String, Int32) =
            switch encoding {
            case .png: (".png", 0)
            case .jpeg(let quality): (".jpg", Int32(clamping: Swift.min(Swift.max(quality, 1), 100)))
            }
        var buffer: OpaquePointer? = nil
        try pixels.withUnsafeBufferPointer { source in
            try bridgeCall(input: nil) {
                mien_image_encode(
                    source.baseAddress, Int32(width), Int32(height), Int32(stride), suffix, quality, &buffer, $0)
            }
        }
        defer { mien_buffer_free(buffer) }
        let count = mien_buffer_size(buffer)
        guard let data = mien_buffer_data(buffer), count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// A `size` x `size` square picture of `region` (frame pixels), widened by `margin` (0.25 = a quarter
    /// of the region's longer side on each side), grey outside the frame.
    public func thumbnail(of region: Rect, size: Int, margin: Double = 0.25) throws -> Frame {
        let side = Swift.max(region.width, region.height) * (1 + 2 * margin)
        guard side > 0, size > 0 else { throw MienError(.invalidArgument, "thumbnail of an empty region") }
        let scale = Double(size) / side
        let centre = region.center
        let transform = AffineTransform.scale(
            scale, thenTranslate: Double(size) / 2 - centre.x * scale, Double(size) / 2 - centre.y * scale)
        return try warped(by: transform, width: size, height: size, border: 128)
    }
}
