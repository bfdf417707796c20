import Foundation
public import MienCore

/// Annotated pictures (one PNG per picture) or an annotated video (every frame, drawn with the faces of
/// the latest processed frame): boxes coloured by valence, IDs, Affdex's points, pose axes, emotions
/// (`FaceAnnotator`).
///
/// The target is a folder (`<input name>.png` / `.mp4` inside it) or, for a single picture or video, the
/// file itself (`out.png`, `out.mp4`).
public final class AnnotationWriter: ResultWriter {
    /// File extensions that make a target a file rather than a folder.
    public static let pictureExtensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "webp"]
    /// Target extensions written as video (anything else is a picture per frame).
    public static let videoExtensions: Set<String> = ["mp4", "avi", "mkv", "mov"]

    /// Whether `target` names a file (by its extension) rather than a folder.
    public static func namesFile(_ target: String) -> Bool {
        let suffix = URL(fileURLWithPath: target).pathExtension.lowercased()
        return pictureExtensions.contains(suffix) || videoExtensions.contains(suffix)
    }

    private let target: String
    private let input: String
    private let base: String
    private var info: SourceInfo?
    private var writer: VideoWriter?
    private var latest: [Shape] = []
    private var pictures = 0
    private var written: [String] = []

    /// A writer drawing on every frame of `input`.
    /// - Parameters:
    ///   - target: a folder, or a file named for this one input.
    ///   - input: the input's path (names the files in a folder).
    public init(target: String, input: String) {
        self.target = target
        self.input = input
        base = URL(fileURLWithPath: input).lastPathComponent
    }

    public var wantsFrames: Bool { true }

    /// Checks that a file target suits the input (a video needs a video file, a picture a picture file, a
    /// folder a folder).
    public func begin(_ info: SourceInfo) throws {
        self.info = info
        guard Self.namesFile(target) else { return }
        let suffix = URL(fileURLWithPath: target).pathExtension.lowercased()
        let wanted = info.kind == .video ? Self.videoExtensions : Self.pictureExtensions
        guard wanted.contains(suffix), info.kind != .imageFolder else {
            throw MienError(
                .invalidArgument,
                "--annotate \(target) does not suit this input (a video needs .mp4, a picture .png or .jpg, a folder a folder)",
                input: input)
        }
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        if result.processed { latest = FaceAnnotator.shapes(for: result) }
        // A frame a live source dropped before analysis has no pixels left to draw on.
        guard let frame else { return }
        let drawn = try frame.drawing(latest)
        let kind = info?.kind ?? .video
        if kind == .video || kind == .camera {
            if writer == nil {
                let path = fileTarget ?? path(base + ".mp4")
                // Written while the video is analysed, on the cores the analysis uses: x264's cheapest preset.
                writer = try VideoWriter(
                    path: path, width: frame.width, height: frame.height,
                    framesPerSecond: info?.framesPerSecond ?? 30, speed: .fastest)
                written.append(path)
            }
            try writer?.write(drawn)
        } else {
            let name = kind == .imageFolder ? "\(base)-\(pictures).png" : base + ".png"
            try drawn.write(toImageFile: fileTarget ?? path(name))
        }
        pictures += 1
    }

    public func finish(_ end: InputEnd) throws {
        defer { writer = nil }
        try writer?.finish()
    }

    public func fail(_ error: MienError) {
        writer = nil
        for path in written { try? FileManager.default.removeItem(atPath: path) }
    }

    private var fileTarget: String? { Self.namesFile(target) ? target : nil }

    private func path(_ name: String) -> String {
        URL(fileURLWithPath: target).appendingPathComponent(name).path
    }
}
