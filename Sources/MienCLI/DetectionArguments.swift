public import ArgumentParser
import Mien

extension FaceMode: ExpressibleByArgument {}

/// Detector flags shared by the subcommands that find faces.
struct DetectionArguments: ParsableArguments {
    @Option(
        help:
            "large: faces near the camera (short-range model); small: small or distant faces (full-range model with tiling)."
    )
    var faceMode: FaceMode = .large

    @Option(help: "Keep at most this many faces per frame, the most confident (1...64).")
    var maxFaces: Int = DetectionOptions.defaultMaximumFaces

    @Option(help: "Drop detections below this confidence (0...1).")
    var minConfidence: Double = DetectionOptions.defaultMinimumConfidence

    @Flag(
        inversion: .prefixedNo,
        help:
            "Still images: when no face is detected, read the whole picture as one face if the mesh finds one there twice (for face crops such as FER-2013's 48x48 pictures, too tight for the detector)."
    )
    var wholePictureFallback = true

    func options() throws -> DetectionOptions {
        try DetectionOptions(
            faceMode: faceMode, maximumFaces: maxFaces, minimumConfidence: minConfidence,
            wholePictureFallback: wholePictureFallback)
    }

    func validate() throws {
        do {
            _ = try options()
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }
}
