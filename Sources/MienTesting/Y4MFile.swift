import Foundation
public import Mien

/// Writes frames as a YUV4MPEG2 file (`.y4m`, planar 4:2:0), the format Chromium's fake camera plays
/// (`--use-file-for-fake-video-capture`), for the live page's browser test.
public enum Y4MFile {
    /// Writes `frames` (all of one size, even width and height) at `framesPerSecond`.
    /// - Throws: `.invalidArgument` for no frames, odd or differing sizes; `.ioFailure` naming `path`.
    public static func write(_ frames: [Frame], framesPerSecond: Int, to path: String) throws {
        guard let first = frames.first, first.width % 2 == 0, first.height % 2 == 0,
            frames.allSatisfy({ $0.width == first.width && $0.height == first.height })
        else {
            throw MienError(.invalidArgument, "a .y4m clip needs frames of one even size", input: path)
        }
        var data = Data("YUV4MPEG2 W\(first.width) H\(first.height) F\(framesPerSecond):1 Ip A1:1 C420jpeg\n".utf8)
        for frame in frames {
            data.append(contentsOf: Array("FRAME\n".utf8))
            data.append(contentsOf: planes(frame))
        }
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw MienError(.ioFailure, "cannot write the clip", input: path, cause: "\(error)")
        }
    }

    /// The Y plane, then U and V at half resolution (BT.601, full range, as `C420jpeg` says).
    static func planes(_ frame: Frame) -> [UInt8] {
        let (width, height) = (frame.width, frame.height)
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 128, count: width * height / 4)
        var v = [UInt8](repeating: 128, count: width * height / 4)
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        for row in 0..<height {
            for column in 0..<width {
                let offset = (row * width + column) * Frame.channels
                // Frames are BGR.
                let (b, g, r) = (
                    Double(frame.pixels[offset]), Double(frame.pixels[offset + 1]), Double(frame.pixels[offset + 2])
                )
                y[row * width + column] = clamp(0.299 * r + 0.587 * g + 0.114 * b)
                if row % 2 == 0 && column % 2 == 0 {
                    let chroma = (row / 2) * (width / 2) + column / 2
                    u[chroma] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)
                    v[chroma] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)
                }
            }
        }
        return y + u + v
    }
}
