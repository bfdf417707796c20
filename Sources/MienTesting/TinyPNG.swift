/// A minimal PNG encoder (stored, uncompressed deflate blocks) for test pictures Mien's own writer cannot
/// make: grey, 16-bit and alpha images, to check that every one of them is read as 8-bit colour.
public enum TinyPNG {
    /// PNG colour types.
    public enum ColourType: UInt8, Sendable {
        case grey = 0
        case rgb = 2
        case greyAlpha = 4
        case rgba = 6

        var channels: Int {
            switch self {
            case .grey: 1
            case .rgb: 3
            case .greyAlpha: 2
            case .rgba: 4
            }
        }
    }

    /// Encodes `samples` (row-major, channels interleaved, one value per channel, 0...255 or 0...65535 for
    /// 16-bit) as a PNG file.
    public static func encode(
        width: Int, height: Int, colourType: ColourType, bitDepth: UInt8 = 8, samples: [Int]
    ) -> [UInt8] {
        precondition(samples.count == width * height * colourType.channels, "sample count")
        var raw: [UInt8] = []
        let rowSamples = width * colourType.channels
        for y in 0..<height {
            raw.append(0)  // filter: none
            for value in samples[(y * rowSamples)..<((y + 1) * rowSamples)] {
                if bitDepth == 16 { raw.append(UInt8(value >> 8 & 0xFF)) }
                raw.append(UInt8(value & 0xFF))
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [bitDepth, colourType.rawValue, 0, 0, 0]
        png += chunk("IHDR", header)
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }

    /// Only the signature and an IHDR claiming `width` x `height`: enough for a header check.
    public static func headerOnly(width: Int, height: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
