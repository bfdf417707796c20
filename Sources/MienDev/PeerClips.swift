import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev peer-clips`: the clips `make bench-peers` compares on, written once into a folder; prints
/// their paths and face counts as `label<TAB>faces<TAB>path` lines.
struct PeerClips: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peer-clips",
        abstract: "Write the clips of make bench-peers (sample, talking head, 720p, 1080p, 2x2).")

    @Option(help: "Folder for the clips.") var out = ".build/peers"

    func run() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        func path(_ name: String) -> String { "\(out)/\(name)" }
        var lines: [String] = []
        let sample = path("sample-640x360.mp4")
        if !FileManager.default.fileExists(atPath: sample) {
            try SampleMedia.astronautClip(width: 640, height: 360, frameCount: 150).write(to: sample)
        }
        lines.append("sample 640x360\t1\t\(sample)")
        guard let eval = SampleMedia.evaluationDirectory else {
            print("SKIPPED talking-head clips: no evaluation data (EVAL_DIR or ../shared/eval)")
            print(lines.joined(separator: "\n"))
            return
        }
        let talking = eval.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path
        lines.append("talking head 512x512\t1\t\(talking)")
        for (width, height) in [(1280, 720), (1920, 1080)] {
            let scaled = path("talking-head-\(width)x\(height).mp4")
            if !FileManager.default.fileExists(atPath: scaled) {
                try Letterboxed.transcode(input: talking, output: scaled, width: width, height: height)
            }
            lines.append("talking head \(width)x\(height)\t1\t\(scaled)")
        }
        let mosaic = path("talking-head-2x2-1024.mp4")
        if !FileManager.default.fileExists(atPath: mosaic) { try Self.mosaic(from: talking, to: mosaic) }
        lines.append("2x2 mosaic 1024x1024\t4\t\(mosaic)")
        print(lines.joined(separator: "\n"))
    }

    /// Four copies of the 512 x 512 clip in a 1024 x 1024 grid.
    static func mosaic(from source: String, to output: String) throws {
        let video = try VideoFileSource(path: source)
        let writer = try VideoWriter(
            path: output, width: 1024, height: 1024, framesPerSecond: video.info.framesPerSecond ?? 30)
        while let frame = try video.nextFrame() {
            var canvas = [UInt8](repeating: 0, count: 1024 * 1024 * 3)
            for tile in 0..<4 {
                let (ox, oy) = ((tile % 2) * 512, (tile / 2) * 512)
                for y in 0..<min(frame.height, 512) {
                    let from = y * frame.stride
                    let to = ((oy + y) * 1024 + ox) * 3
                    canvas.replaceSubrange(to..<(to + 512 * 3), with: frame.pixels[from..<(from + 512 * 3)])
                }
            }
            try writer.write(Frame(width: 1024, height: 1024, pixels: canvas))
        }
    }
}
