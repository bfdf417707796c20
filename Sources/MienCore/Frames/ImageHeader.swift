/// The format and pixel size of an encoded image, read from its first bytes without decoding it.
///
/// Used for two things: to refuse an image over `ImageLimits.maximumPixels` before its pixels are
/// allocated, and to tell "not an image at all" (a text file named `.jpg`) from "a damaged image".
package struct ImageHeader: Sendable, Equatable {
    /// Encodings Mien recognises by their signature.
    package enum Format: String, Sendable {
        case jpeg, png, bmp, webp, tiff, pnm, jpeg2000, openEXR, hdr, sunRaster
    }

    package var format: Format
    /// Size in pixels, when the header states it where this parser looks (nil: decode to find out).
    package var width: Int?
    package var height: Int?

    package init(format: Format, width: Int? = nil, height: Int? = nil) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Reads the signature and, for JPEG, PNG, BMP, WebP and TIFF, the size.
    /// - Returns: nil when the bytes start with no known image signature.
    package static func probe(_ bytes: [UInt8]) -> ImageHeader? {
        var reader = ByteReader(bytes)
        if reader.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // IHDR is always the first chunk: width and height are big-endian at offsets 16 and 20.
            return ImageHeader(format: .png, width: reader.uint32BE(at: 16), height: reader.uint32BE(at: 20))
        }
        if reader.starts(with: [0xFF, 0xD8, 0xFF]) { return probeJPEG(&reader) }
        if reader.starts(with: [0x42, 0x4D]) {
            let height = reader.int32LE(at: 22).map { abs($0) }  // negative height = top-down rows
            return ImageHeader(format: .bmp, width: reader.int32LE(at: 18), height: height)
        }
        if reader.starts(with: Array("RIFF".utf8)), reader.matches(Array("WEBP".utf8), at: 8) {
            return probeWebP(&reader)
        }
        if reader.starts(with: [0x49, 0x49, 0x2A, 0x00]) || reader.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return probeTIFF(&reader)
        }
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]) {
            return ImageHeader(format: .pnm)
        }
        if reader.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) || reader.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            return ImageHeader(format: .jpeg2000)
        }
        if reader.starts(with: [0x76, 0x2F, 0x31, 0x01]) { return ImageHeader(format: .openEXR) }
        if reader.starts(with: Array("#?RADIANCE".utf8)) || reader.starts(with: Array("#?RGBE".utf8)) {
            return ImageHeader(format: .hdr)
        }
        if reader.starts(with: [0x59, 0xA6, 0x6A, 0x95]) { return ImageHeader(format: .sunRaster) }
        return nil
    }

    /// Width x height, when both are known.
    package var pixelCount: Int? {
        guard let width, let height else { return nil }
        return width.multipliedReportingOverflow(by: height).overflow ? Int.max : width * height
    }

    // MARK: - Per-format parsers

    private static func probeJPEG(_ reader: inout ByteReader) -> ImageHeader {
        // Read the markers the way libjpeg does, because its reading decides what gets allocated: bytes
        // between segments that are not 0xFF are skipped ("extraneous bytes before marker"), runs of 0xFF
        // are fill, and a segment whose length is under 2 skips nothing past its length field. A stricter
        // walk stopped at the first oddity and missed a later 63527 x 16424 SOF (image_decode fuzzer).
        var offset = 2
        while let kind = nextJPEGMarker(reader, after: &offset) {
            if kind == 0xD8 || (0xD0...0xD7).contains(kind) || kind == 0x01 { continue }  // no length
            if kind == 0xD9 || kind == 0xDA { break }  // end of image / scan before any frame header
            let isStartOfFrame = (0xC0...0xCF).contains(kind) && ![0xC4, 0xC8, 0xCC].contains(kind)
            if isStartOfFrame {
                return ImageHeader(
                    format: .jpeg, width: reader.uint16BE(at: offset + 5), height: reader.uint16BE(at: offset + 3))
            }
            guard let length = reader.uint16BE(at: offset) else { break }
            offset += max(length, 2)
        }
        return ImageHeader(format: .jpeg)
    }

    /// The next marker code at or after `offset` (libjpeg's `next_marker`), leaving `offset` just past it.
    private static func nextJPEGMarker(_ reader: ByteReader, after offset: inout Int) -> UInt8? {
        while let byte = reader.uint8(at: offset) {
            offset += 1
            guard byte == 0xFF else { continue }
            while reader.uint8(at: offset) == 0xFF { offset += 1 }
            guard let kind = reader.uint8(at: offset) else { return nil }
            offset += 1
            if kind != 0x00 { return kind }  // FF 00 is a stuffed data byte, not a marker
        }
        return nil
    }

    private static func probeWebP(_ reader: inout ByteReader) -> ImageHeader {
        if reader.matches(Array("VP8X".utf8), at: 12),
            let w = reader.uint24LE(at: 24), let h = reader.uint24LE(at: 27)
        {
            return ImageHeader(format: .webp, width: w + 1, height: h + 1)
        }
        if reader.matches(Array("VP8 ".utf8), at: 12), let w = reader.uint16LE(at: 26), let h = reader.uint16LE(at: 28)
        {
            return ImageHeader(format: .webp, width: w & 0x3FFF, height: h & 0x3FFF)
        }
        if reader.matches(Array("VP8L".utf8), at: 12), let bits = reader.uint32LE(at: 21) {
            return ImageHeader(format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        }
        return ImageHeader(format: .webp)
    }

    private static func probeTIFF(_ reader: inout ByteReader) -> ImageHeader {
        let little = reader.uint8(at: 0) == 0x49
        func u16(_ at: Int) -> Int? { little ? reader.uint16LE(at: at) : reader.uint16BE(at: at) }
        func u32(_ at: Int) -> Int? { little ? reader.uint32LE(at: at) : reader.uint32BE(at: at) }
        guard let ifd = u32(4), let count = u16(ifd) else { return ImageHeader(format: .tiff) }
        var width: Int?
        var height: Int?
        for entry in 0..<min(count, 512) {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at), let type = u16(at + 2) else { break }
            let value = type == 3 ? u16(at + 8) : u32(at + 8)
            if tag == 256 { width = value }
            if tag == 257 { height = value }
        }
        return ImageHeader(format: .tiff, width: width, height: height)
    }
}

/// Bounds-checked reads from a byte array; every read past the end returns nil.
private struct ByteReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func starts(with prefix: [UInt8]) -> Bool { matches(prefix, at: 0) }
    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + pattern.count <= bytes.count && Array(bytes[offset..<offset + pattern.count]) == pattern
    }
    func uint8(at i: Int) -> UInt8? { i >= 0 && i < bytes.count ? bytes[i] : nil }
    private func value(at i: Int, count: Int, bigEndian: Bool) -> Int? {
        guard i >= 0, i + count <= bytes.count else { return nil }
        var result = 0
        for k in 0..<count {
            let byte = Int(bytes[i + (bigEndian ? k : count - 1 - k)])
            result = result << 8 | byte
        }
        return result
    }
    func uint16BE(at i: Int) -> Int? { value(at: i, count: 2, bigEndian: true) }
    func uint16LE(at i: Int) -> Int? { value(at: i, count: 2, bigEndian: false) }
    func uint24LE(at i: Int) -> Int? { value(at: i, count: 3, bigEndian: false) }
    func uint32BE(at i: Int) -> Int? { value(at: i, count: 4, bigEndian: true) }
    func uint32LE(at i: Int) -> Int? { value(at: i, count: 4, bigEndian: false) }
    func int32LE(at i: Int) -> Int? {
        value(at: i, count: 4, bigEndian: false).map { Int(Int32(truncatingIfNeeded: $0)) }
    }
}
