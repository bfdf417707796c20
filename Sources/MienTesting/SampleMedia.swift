public import Foundation
public import Mien

/// The bundled public-domain sample and where its face is, for tests, benchmarks and the demo.
public enum SampleMedia {
    /// The repository root (the folder holding Package.swift), found from this source file's location
    /// or, failing that, from the current directory.
    public static var repositoryRoot: URL {
        let fromSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: fromSource.appendingPathComponent("Package.swift").path) {
            return fromSource
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// `Samples/astronaut.jpg`: NASA's portrait of Eileen Collins, 512 x 512, one frontal face.
    public static var astronautPath: String { repositoryRoot.appendingPathComponent("Samples/astronaut.jpg").path }
    /// The bundled video: 45 frames (3 s at 15 fps) panning over the astronaut (`make demo`'s input).
    public static var astronautClipPath: String {
        repositoryRoot.appendingPathComponent("Samples/astronaut-pan-zoom.mp4").path
    }

    /// The face in the astronaut portrait, labelled by hand (brow to chin, ear to ear), in pixels.
    public static let astronautFace = Rect(x: 178, y: 80, width: 94, height: 100)
    /// Her eye centres, labelled by hand: the person's right eye is on the image's left.
    public static let astronautRightEye = Point(x: 200, y: 104)
    public static let astronautLeftEye = Point(x: 245, y: 107)

    /// Side of `astronautTightCrop()` in pixels, FER-2013's.
    public static let tightCropSide = 48
    /// From the portrait's pixels to `astronautTightCrop()`'s: her face from the brows to just above the
    /// chin, cheek to cheek, stretched onto 48 x 48 (FER-2013's tight framing).
    package static var astronautTightCropTransform: MienCore.AffineTransform {
        let face = astronautFace
        let inner = Rect(x: face.x + 16, y: face.y + 12, width: face.width - 32, height: face.height - 20)
        let side = Double(tightCropSide)
        return MienCore.AffineTransform(
            a: side / inner.width, b: 0, tx: -inner.x * side / inner.width, c: 0, d: side / inner.height,
            ty: -inner.y * side / inner.height)
    }

    /// Her face framed as FER-2013 frames faces (`astronautTightCropTransform`): too tight for the
    /// full-range detector (`FaceMode.small`) even with its zoomed-out look.
    public static func astronautTightCrop() throws -> Frame {
        try ImageDecoder.decode(file: astronautPath).warped(
            by: astronautTightCropTransform, width: tightCropSide, height: tightCropSide)
    }

    /// The shared evaluation data (`EVAL_DIR`, default `../shared/eval` beside the repository), or nil
    /// when it is absent, in which case tests that need it say they were skipped.
    public static var evaluationDirectory: URL? {
        if case .present(let url) = evaluationData { return url }
        return nil
    }

    /// Where the evaluation data is, and whether it is there.
    public enum EvaluationData: Sendable, Equatable {
        /// The folder exists.
        case present(URL)
        /// `EVAL_DIR` is not set and `../shared/eval` does not exist.
        case absent
        /// `EVAL_DIR` names a folder that does not exist (a typo must not look like "no data").
        case missing(String)
    }

    /// `EVAL_DIR` when set, else `../shared/eval` beside the repository.
    public static var evaluationData: EvaluationData {
        let environment = ProcessInfo.processInfo.environment["EVAL_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let url =
            environment.map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/eval")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return .present(url.standardizedFileURL)
        }
        return environment.map { .missing($0) } ?? .absent
    }

    /// A pan-and-zoom clip of the astronaut at `width` x `height`, centred on her face.
    public static func astronautClip(width: Int, height: Int, frameCount: Int, framesPerSecond: Double = 30) throws
        -> PanAndZoomClip
    {
        let still = try ImageDecoder.decode(file: astronautPath)
        return PanAndZoomClip(
            still: still, width: width, height: height, frameCount: frameCount, framesPerSecond: framesPerSecond,
            center: Point(x: 240, y: 180))
    }
}
