import MienCore
import Testing

@Suite("Image header probing")
struct ImageHeaderTests {
    @Test func png_reportsItsSize() {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        bytes += [0x00, 0x00, 0x4E, 0x20, 0x00, 0x00, 0x4E, 0x20]  // 20000 x 20000
        let header = ImageHeader.probe(bytes)
        #expect(header == ImageHeader(format: .png, width: 20000, height: 20000))
        #expect(header?.pixelCount == 400_000_000)
    }

    @Test func jpeg_findsTheStartOfFrameSegment() {
        // SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + [UInt8](repeating: 0, count: 14)
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03]
        #expect(ImageHeader.probe(bytes) == ImageHeader(format: .jpeg, width: 640, height: 480))
    }

    @Test func jpeg_readsMarkersAsLibjpegDoes_pastGarbageAndShortSegments() {
        // From the image_decode fuzzer: APP0 with length 0, stray bytes, then a DQT, then SOF0 claiming
        // 63527 rows x 16424 columns. libjpeg skips the stray bytes and allocates for that SOF, so the
        // probe must find it too.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00, 0xC0, 0xD5]
        bytes += [0xFF, 0xDB, 0x00, 0x04, 0x00, 0x02, 0x11, 0x22, 0xFF, 0x00, 0x33]
        bytes += [0xFF, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0xF8, 0x27, 0x40, 0x28, 0x01]
        #expect(ImageHeader.probe(bytes) == ImageHeader(format: .jpeg, width: 16424, height: 63527))
    }

    @Test func jpeg_withAScanBeforeAnyFrameHeader_hasNoSize() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x01, 0x00, 0x01, 0x00]
        #expect(ImageHeader.probe(bytes) == ImageHeader(format: .jpeg))
    }

    @Test func bmp_withTopDownRows_reportsPositiveHeight() {
        var bytes = [UInt8](repeating: 0, count: 30)
        bytes[0] = 0x42
        bytes[1] = 0x4D
        bytes[18] = 0x20  // width 32
        bytes[22] = 0xF0
        bytes[23] = 0xFF
        bytes[24] = 0xFF
        bytes[25] = 0xFF  // height -16
        #expect(ImageHeader.probe(bytes) == ImageHeader(format: .bmp, width: 32, height: 16))
    }

    @Test func textAndTruncatedHeaders_areHandled() {
        #expect(ImageHeader.probe(Array("hello, I am not a picture".utf8)) == nil)
        #expect(ImageHeader.probe([]) == nil)
        #expect(ImageHeader.probe([0xFF, 0xD8, 0xFF]) == ImageHeader(format: .jpeg))
        #expect(ImageHeader.probe([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])?.width == nil)
    }
}
