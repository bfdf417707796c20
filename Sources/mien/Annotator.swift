import Foundation
import Mien

/// Writes annotated pictures (one PNG per picture) or an annotated video (every frame, drawn with the
/// faces of the latest processed frame).
///
/// `--annotate` names a folder (`<input name>.png` / `.mp4` inside it) or, for a single picture or video,
/// the file itself (`out.png`, `out.mp4`).
final class Annotator {
    /// File extensions that make `--annotate` a file rather than a folder.
    static let pictureExtensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "webp"]
    static let videoExtensions: Set<String> = ["mp4", "avi", "mkv", "mov"]

    /// Whether `--annotate target` names a file (by its extension) rather than a folder.
    static func namesFile(_ target: String) -> Bool {
        let suffix = URL(fileURLWithPath: target).pathExtension.lowercased()
        return pictureExtensions.contains(suffix) || videoExtensions.contains(suffix)
    }

    private let folder: String
    private let file: String?
    private let base: String
    private let info: SourceInfo
    private var writer: VideoWriter?
    private var latest: [Shape] = []
    private var pictures = 0

    init(target: String, input: String, info: SourceInfo) throws {
        let suffix = URL(fileURLWithPath: target).pathExtension.lowercased()
        if Self.namesFile(target) {
            let wanted = info.kind == .video ? Self.videoExtensions : Self.pictureExtensions
            guard wanted.contains(suffix), info.kind != .imageFolder else {
                throw MienError(
                    .invalidArgument,
                    "--annotate \(target) does not suit this input (a video needs .mp4, a picture .png or .jpg, a folder a folder)",
                    input: input)
            }
            file = target
            folder = URL(fileURLWithPath: target).deletingLastPathComponent().path
        } else {
            file = nil
            folder = target
        }
        base = URL(fileURLWithPath: input).lastPathComponent
        self.info = info
    }

    func add(_ frame: Frame, _ result: DetectorResult) throws {
        if result.processed { latest = FaceAnnotator.shapes(for: result) }
        let drawn = try frame.drawing(latest)
        if info.kind == .video {
            if writer == nil {
                writer = try VideoWriter(
                    path: file ?? path(base + ".mp4"), width: frame.width, height: frame.height,
                    framesPerSecond: info.framesPerSecond ?? 30)
            }
            try writer?.write(drawn)
        } else {
            let name = info.kind == .imageFolder ? "\(base)-\(pictures).png" : base + ".png"
            try drawn.write(toImageFile: file ?? path(name))
        }
        pictures += 1
    }

    func finish() throws { writer = nil }

    private func path(_ name: String) -> String { URL(fileURLWithPath: folder).appendingPathComponent(name).path }
}
