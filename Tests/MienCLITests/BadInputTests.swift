import Foundation
import Mien
import MienTesting
import Testing

/// The bad-input suite: every kind of damaged, odd or missing input gets its own clear error naming it,
/// and the good inputs of the same run still complete.
@Suite("Bad input")
struct BadInputTests {
    /// Bad files made from the sample: name, bytes, and what the error must say.
    struct Case {
        var name: String
        var bytes: [UInt8]
        /// Words the `mien: error: <path>: ...` line must contain; nil = the file may also be read (a
        /// bit-flipped JPEG often still decodes) but then its outputs must be complete.
        var error: String?
    }

    static func sampleBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `bytes` with every 97th byte after the first tenth inverted.
    static func flipped(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        for i in stride(from: bytes.count / 10, to: bytes.count, by: 97) { copy[i] ^= 0xFF }
        return copy
    }

    /// An AVI whose headers (main header and stream format) claim 64 x 48 pixels and 100,000 frames while
    /// its stream holds 8 frames of 160 x 120.
    static func lyingAVI(in folder: URL) throws -> [UInt8] {
        let path = folder.appendingPathComponent("honest.avi").path
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 8).write(to: path)
        var bytes = try sampleBytes(path)
        func put(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { bytes[offset + k] = UInt8(value >> (8 * UInt32(k)) & 0xFF) }
        }
        func find(_ tag: String) -> Int? {
            let needle = Array(tag.utf8)
            return (0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == needle }
        }
        if let avih = find("avih") {
            put(100_000, at: avih + 8 + 16)  // dwTotalFrames
            put(64, at: avih + 8 + 32)  // dwWidth
            put(48, at: avih + 8 + 36)  // dwHeight
        }
        if let strf = find("strf") {
            put(64, at: strf + 8 + 4)  // biWidth
            put(48, at: strf + 8 + 8)  // biHeight
        }
        return bytes
    }

    @Test func damagedAndOddFiles_eachGetAClearError_andTheOthersComplete() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = try Self.sampleBytes(SampleMedia.astronautPath)
        let clipPath = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 8).write(to: clipPath)
        let mp4 = try Self.sampleBytes(clipPath)
        let pngPath = folder.appendingPathComponent("sample.png").path
        try ImageDecoder.decode(file: SampleMedia.astronautPath).write(toImageFile: pngPath)
        let png = try Self.sampleBytes(pngPath)
        let cases: [Case] = [
            Case(name: "empty.jpg", bytes: [], error: "empty"),
            Case(name: "empty.png", bytes: [], error: "empty"),
            Case(name: "empty.mp4", bytes: [], error: "empty"),
            Case(name: "half.jpg", bytes: Array(jpeg.prefix(jpeg.count / 2)), error: nil),
            Case(name: "half.png", bytes: Array(png.prefix(png.count / 2)), error: "decode"),
            Case(name: "half.mp4", bytes: Array(mp4.prefix(mp4.count / 2)), error: "could not open"),
            Case(name: "flipped.jpg", bytes: Self.flipped(jpeg), error: nil),
            Case(name: "flipped.png", bytes: Self.flipped(png), error: nil),
            Case(name: "flipped.mp4", bytes: Self.flipped(mp4), error: nil),
            Case(name: "lying.avi", bytes: try Self.lyingAVI(in: folder), error: nil),
            Case(name: "huge.png", bytes: TinyPNG.headerOnly(width: 20_000, height: 20_000), error: "pixels"),
            Case(name: "text.jpg", bytes: Array("not a picture\n".utf8), error: "not an image"),
        ]
        var inputs: [String] = []
        for item in cases {
            let path = folder.appendingPathComponent(item.name).path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(item.bytes)))
            inputs.append(path)
        }
        let missing = folder.appendingPathComponent("missing.jpg").path
        let output = folder.appendingPathComponent("out").path
        let result = try runMien(["analyze", SampleMedia.astronautPath] + inputs + [missing, "--output", output])
        #expect(result.status == 1, "some inputs failed: exit 1")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("mien: error: ") }
        for (item, path) in zip(cases, inputs) {
            let line = errors.first { $0.hasPrefix("mien: error: \(path)") }
            let outputs = ["jsonl", "csv", "summary.json"].map { "\(output)/\(item.name).\($0)" }
            let complete = outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }
            if let expected = item.error {
                #expect(line?.lowercased().contains(expected) == true, "\(item.name): \(line ?? "no error")")
            } else {
                #expect(line != nil || complete, "\(item.name): an error or complete outputs")
            }
        }
        #expect(errors.contains { $0.hasPrefix("mien: error: \(missing)") && $0.contains("no such file") })
        #expect(FileManager.default.fileExists(atPath: "\(output)/astronaut.jpg.csv"), "the good input completed")
        // The lying AVI is read by what its stream holds, not what its headers claim.
        let lying = try String(contentsOfFile: "\(output)/lying.avi.jsonl", encoding: .utf8)
        #expect(lying.split(separator: "\n").count == 8)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary files: \(leftovers)")
    }
}
