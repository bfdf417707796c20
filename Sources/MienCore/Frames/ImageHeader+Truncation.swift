extension ImageHeader {
    /// Whether `bytes`, which `probe(_:)` read as `format`, stop before the format's own end: a JPEG with
    /// no end-of-image marker after its scan, a PNG whose chunks run past the end or never reach `IEND`.
    ///
    /// OpenCV's decoders fill a truncated JPEG's missing rows with grey and return it as a picture, and
    /// libjpeg and libpng print their complaint to stderr; checking the structure first gives one clear
    /// error instead, and keeps a half-sent live frame from being analysed. Other formats: false (their
    /// decoders refuse what they cannot read).
    package static func isTruncated(_ bytes: [UInt8], format: Format) -> Bool {
        switch format {
        case .jpeg: jpegIsTruncated(bytes)
        case .png: pngIsTruncated(bytes)
        default: false
        }
    }

    private static func jpegIsTruncated(_ bytes: [UInt8]) -> Bool {
        var offset = 2
        while offset < bytes.count {
            // libjpeg skips bytes between segments that are not 0xFF; runs of 0xFF are fill.
            guard bytes[offset] == 0xFF else {
                offset += 1
                continue
            }
            while offset < bytes.count && bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { return true }
            let kind = bytes[offset]
            offset += 1
            if kind == 0xD9 { return false }
            if kind == 0xD8 || kind == 0x00 || kind == 0x01 || (0xD0...0xD7).contains(kind) { continue }
            guard offset + 1 < bytes.count else { return true }
            let length = max(Int(bytes[offset]) << 8 | Int(bytes[offset + 1]), 2)
            if kind == 0xDA {
                // Entropy-coded data follows; in it 0xFF is stuffed (FF 00) or a restart marker (FF D0-D7),
                // so FF D9 is the end of the image. Searched from the end: a whole file has it there (trailing
                // data after it, such as a motion photo's video, does not matter).
                let start = offset + length
                var index = bytes.count - 2
                while index >= start {
                    if bytes[index] == 0xFF && bytes[index + 1] == 0xD9 { return false }
                    index -= 1
                }
                return true
            }
            offset += length
        }
        return true
    }

    private static func pngIsTruncated(_ bytes: [UInt8]) -> Bool {
        let end = Array("IEND".utf8)
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            let next = offset + 12 + length
            guard next <= bytes.count else { return true }
            if Array(bytes[offset + 4..<offset + 8]) == end { return false }
            offset = next
        }
        return true
    }
}
