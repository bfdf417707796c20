import Foundation
import Mien
import MienTesting
import Testing

@testable import MienVision

/// Plain JPEGs are decoded by libjpeg-turbo straight into BGR instead of by OpenCV (which decodes to RGB and swaps
/// the bytes of every pixel); these tests hold the two paths to the same pixels and the fallback to its cases.
@Suite("JPEG decoding: libjpeg-turbo's direct path gives OpenCV's pixels")
struct JPEGDecodingTests {
    /// Decodes `bytes` both ways; the frames, and whether the default path took libjpeg-turbo's.
    private func bothWays(_ bytes: [UInt8], name: String) throws -> (direct: Frame, openCV: Frame, tookDirect: Bool) {
        let fast = try DecodedImage(bytes: bytes, maximumPixels: ImageLimits.maximumPixels, input: name)
        let slow = try DecodedImage(
            bytes: bytes, maximumPixels: ImageLimits.maximumPixels, input: name, openCVOnly: true)
        #expect(!slow.decodedDirectly, "\(name): asked for OpenCV, decoded directly")
        return (try fast.frame(timestamp: 0, index: 0), try slow.frame(timestamp: 0, index: 0), fast.decodedDirectly)
    }

    @Test func theSampleAndCameraFrames_decodeDirectly_toTheSamePixels() throws {
        var pictures: [(String, [UInt8])] = [
            ("astronaut.jpg", [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath))))
        ]
        // What a participant's page sends (640x480, quality 85), odd sizes (partial MCUs at the edges), and
        // the extremes of quality (other quantisation tables).
        let clip = try SampleMedia.astronautClip(width: 640, height: 480, frameCount: 3)
        for index in 0..<3 {
            pictures.append(("camera \(index)", try clip.frame(at: index).encoded(as: .jpeg(quality: 85))))
        }
        let sample = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        for (width, height, quality) in [(333, 211, 95), (17, 9, 30), (1, 1, 100), (640, 479, 5)] {
            let scaled = try sample.warped(
                by: AffineTransform(a: Double(width) / 512, b: 0, tx: 0, c: 0, d: Double(height) / 512, ty: 0),
                width: width, height: height)
            pictures.append(("\(width)x\(height) q\(quality)", try scaled.encoded(as: .jpeg(quality: quality))))
        }
        for (name, bytes) in pictures {
            let decoded = try bothWays(bytes, name: name)
            #expect(decoded.tookDirect, "\(name) was left to OpenCV")
            #expect(decoded.direct.width == decoded.openCV.width && decoded.direct.height == decoded.openCV.height)
            #expect(decoded.direct.pixels == decoded.openCV.pixels, "\(name): the two decoders' pixels differ")
        }
    }

    @Test(.needsEvaluationData) func evaluationJPEGs_greyAndColour_decodeDirectly_toTheSamePixels() throws {
        let root = try evaluationRoot()
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        var compared = 0
        var direct = 0
        var grey = 0
        for folder in folders {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            var taken = 0
            // Up to 25 JPEGs of each set: cameras, scanners and encoders of many kinds, grey (fer2013) and colour.
            while taken < 25, let relative = enumerator?.nextObject() as? String {
                let lower = relative.lowercased()
                guard lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") else { continue }
                let path = root.appendingPathComponent(folder).appendingPathComponent(relative).path
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                let decoded = try bothWays(bytes, name: path)
                #expect(decoded.direct.pixels == decoded.openCV.pixels, "\(path): the two decoders' pixels differ")
                #expect(decoded.direct.width == decoded.openCV.width && decoded.direct.height == decoded.openCV.height)
                if decoded.tookDirect { direct += 1 }
                if Self.components(of: bytes) == 1 { grey += 1 }
                compared += 1
                taken += 1
            }
        }
        #expect(compared >= 150, "only \(compared) JPEGs found in \(root.path)")
        // All but those carrying EXIF (left to OpenCV for its orientation) take the direct path.
        #expect(Double(direct) >= 0.8 * Double(compared), "\(direct) of \(compared) decoded directly")
        #expect(grey >= 20, "only \(grey) grey JPEGs compared")
    }

    @Test func exifCorruptAndOversizedJPEGs_areLeftToOpenCV_asBefore() throws {
        let sample = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        // EXIF (here an orientation of 1): OpenCV reads and applies orientation, so it decodes these.
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0,
        ]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        var exif = sample
        exif.insert(
            contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload,
            at: 2)
        let withExif = try bothWays(exif, name: "exif.jpg")
        #expect(!withExif.tookDirect)
        #expect(withExif.direct.pixels == withExif.openCV.pixels)
        // Cut short: libjpeg warns of the premature end, so OpenCV decides, as it did before.
        let cut = try? DecodedImage(
            bytes: Array(sample.prefix(sample.count / 2)), maximumPixels: ImageLimits.maximumPixels, input: "cut.jpg")
        #expect(cut.map(\.decodedDirectly) != true)
        // Over the pixel limit: refused with OpenCV's guarded allocation's error, before any pixel is made.
        #expect {
            _ = try DecodedImage(bytes: sample, maximumPixels: 512 * 511, input: "big.jpg")
        } throws: { ($0 as? MienError)?.code == .tooLarge }
    }

    /// The number of components in a JPEG's first start-of-frame marker (1: grey), or nil.
    private static func components(of bytes: [UInt8]) -> Int? {
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC3).contains(marker) { return Int(bytes[index + 9]) }
            index += 2 + length
        }
        return nil
    }
}
