import Foundation
import Mien
import MienTesting
import Testing

@Suite("Still images: decoding, EXIF, folders and bad files")
struct ImageInputTests {
    @Test func sample_decodesToBGR_512Square() throws {
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        #expect(frame.width == 512 && frame.height == 512 && frame.pixels.count == 512 * 512 * 3)
        // The orange suit at (100, 400) is red-dominant in BGR order.
        let offset = (400 * 512 + 100) * 3
        #expect(frame.pixels[offset + 2] > frame.pixels[offset] + 60)
    }

    @Test func bytesInMemory_decodeLikeTheFile() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        let source = try ImageSource(bytes: bytes, name: "upload")
        let frame = try #require(try source.nextFrame())
        #expect(frame.pixels == (try ImageDecoder.decode(file: SampleMedia.astronautPath)).pixels)
        #expect(try source.nextFrame() == nil)
    }

    @Test(arguments: ["png", "bmp", "webp", "tiff", "jpg"])
    func everyCommonFormat_roundTripsThroughOpenCV(format: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let path = scratch.path("copy.\(format)")
        try frame.write(toImageFile: path)
        let back = try ImageDecoder.decode(file: path)
        #expect(back.width == 512 && back.height == 512)
    }

    @Test func exifOrientation_isHonoured() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // A 40 x 20 JPEG whose EXIF says "rotate 90° clockwise to display" (orientation 6).
        var pixels = [UInt8](repeating: 0, count: 40 * 20 * 3)
        for y in 0..<20 { for x in 0..<20 { pixels[(y * 40 + x) * 3 + 2] = 255 } }  // left half red
        let plain = scratch.path("plain.jpg")
        try Frame(width: 40, height: 20, pixels: pixels).write(toImageFile: plain)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0,
        ]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        bytes.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        let rotated = try ImageDecoder.decode(bytes: bytes, input: "rotated.jpg")
        #expect(rotated.width == 20 && rotated.height == 40)
        // Rotated clockwise, the red left half becomes the top half.
        #expect(rotated.pixels[(2 * 20 + 10) * 3 + 2] > 200)
        #expect(rotated.pixels[(37 * 20 + 10) * 3 + 2] < 60)
    }

    @Test func badFiles_eachGetTheirOwnErrorNamingTheFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let sample = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        let cases: [(name: String, bytes: [UInt8]?, code: MienError.Code)] = [
            ("empty.jpg", [], .corruptData),
            ("text.jpg", Array("this is a text file, not a picture\n".utf8), .unsupportedFormat),
            // A JPEG signature followed by garbage: claims to be a JPEG, decodes to nothing.
            ("corrupt.jpg", [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x5A, count: 4000), .corruptData),
            ("truncated.png", nil, .corruptData),
            ("missing.jpg", nil, .notFound),
        ]
        for item in cases {
            var path = scratch.path(item.name)
            if let bytes = item.bytes { path = try scratch.write(bytes, to: item.name) }
            if item.name == "truncated.png" {
                let png = scratch.path("full.png")
                try ImageDecoder.decode(bytes: sample).write(toImageFile: png)
                let full = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
                path = try scratch.write(Array(full.prefix(full.count / 3)), to: item.name)
            }
            let error = mienError { _ = try ImageDecoder.decode(file: path) }
            #expect(error?.code == item.code, "\(item.name): \(String(describing: error))")
            #expect(error?.input == path, "\(item.name) error must name the file")
        }
        let directory = mienError { _ = try ImageDecoder.decode(file: scratch.url.path) }
        #expect(directory?.code == .unreadable)
    }

    @Test func hugeImage_isRefusedFromItsHeader_beforeDecoding() throws {
        // A PNG header announcing 20000 x 20000 pixels (the body is never read).
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        bytes += [0x00, 0x00, 0x4E, 0x20, 0x00, 0x00, 0x4E, 0x20, 8, 2, 0, 0, 0] + [UInt8](repeating: 0, count: 64)
        let error = mienError { _ = try ImageDecoder.decode(bytes: bytes, input: "huge.png") }
        #expect(error?.code == .tooLarge && error?.input == "huge.png")
    }

    @Test func hugeImage_whoseHeaderTheProbeCannotSize_isRefusedBeforeItsPixelsAreAllocated() throws {
        // PGM states its size in text the Swift probe does not parse; OpenCV would allocate 900 MB for it.
        // The bridge's allocator guard refuses the allocation itself (the image_decode fuzzer's lesson).
        let bytes = Array("P5\n30000 30000\n255\n".utf8) + [UInt8](repeating: 128, count: 64)
        let error = mienError { _ = try ImageDecoder.decode(bytes: bytes, input: "huge.pgm") }
        #expect(error?.code == .tooLarge && error?.input == "huge.pgm", "\(String(describing: error))")
        #expect(error?.message.contains("900000000 pixels") == true, "\(String(describing: error))")
        // The guard is per decode: a normal picture decodes right after.
        #expect(try ImageDecoder.decode(file: SampleMedia.astronautPath).width > 0)
    }

    @Test func folder_readsImagesInNameOrder_andCarriesOnPastABadOne() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let sample = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        try sample.write(toImageFile: scratch.path("a.png"))
        _ = try scratch.write(Array("not an image".utf8), to: "b.jpg")
        try sample.write(toImageFile: scratch.path("c.jpg"))
        _ = try scratch.write(Array("notes".utf8), to: "README.txt")
        let source = try ImageFolderSource(path: scratch.url.path, interval: 1)
        #expect(source.files.map { ($0 as NSString).lastPathComponent } == ["a.png", "b.jpg", "c.jpg"])
        var frames: [Frame] = []
        var errors: [MienError] = []
        source.drain({ frames.append($0) }, onError: { errors.append($0) })
        #expect(frames.map(\.index) == [0, 2] && frames.map(\.timestamp) == [0, 2])
        #expect(errors.count == 1 && errors.first?.input?.hasSuffix("b.jpg") == true)
    }
}
