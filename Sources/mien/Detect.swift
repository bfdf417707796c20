import ArgumentParser
import Foundation
import Mien

/// `mien detect`: prints the faces found in each frame as JSON Lines.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find faces and print one JSON object per frame (JSON Lines) on standard output.",
        discussion: """
            Inputs are image files, folders of images and video files, in any mix. Errors name their input \
            and go to standard error; the remaining inputs are still processed.
            """)

    @Argument(help: "Image files, image folders or video files.")
    var inputs: [String] = []

    @Option(help: "Read a camera: an index (0 = /dev/video0) or a device path.")
    var camera: String?

    @Option(help: "Stop a camera (or any input) after this many frames.")
    var maxFrames: Int?

    @Flag(
        help:
            "Also print the 478 mesh points of every face ([x, y, z], z = relative depth in pixels) and its 68 points in the iBUG 300-W / dlib layout."
    )
    var landmarks = false

    @Flag(help: "Treat the images of a folder as frames of one stream (tracked) rather than unrelated pictures.")
    var continuous = false

    @Option(help: "Seconds between the images of a --continuous folder.")
    var interval = 1.0

    @Flag(help: "Only run the face detector and print its boxes and six keypoints (no mesh, pose or tracking).")
    var detectorOnly = false

    @Flag(help: "Also measure the 21 Affdex expressions (with left/right sides) and the 14 emoji, 0...100.")
    var expressions = false

    @Flag(help: "Also score the 7 emotions plus contempt (0...100), valence (-100...100) and engagement.")
    var emotions = false

    @Flag(help: "Also estimate perceived gender, apparent age (with Affdex's bracket) and glasses.")
    var appearance = false

    @Flag(help: "With --expressions, score every frame against population norms instead of each face's baseline.")
    var noBaseline = false

    @Flag(help: "With --expressions, also print MediaPipe's 52 blendshapes (0...1).")
    var blendshapes = false

    @OptionGroup var detection: DetectionArguments

    func validate() throws {
        if inputs.isEmpty && camera == nil { throw ValidationError("give at least one input, or --camera") }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        if interval <= 0 { throw ValidationError("--interval must be positive") }
        if (noBaseline || blendshapes) && !(expressions || emotions) {
            throw ValidationError("--no-baseline and --blendshapes need --expressions or --emotions")
        }
        if detectorOnly && (expressions || emotions || appearance) {
            throw ValidationError("--detector-only cannot measure expressions, emotions or appearance")
        }
    }

    func run() throws {
        let models: ModelStore
        let detector: BlazeFaceDetector?
        do {
            models = try ModelStore()
            detector = detectorOnly ? try BlazeFaceDetector(options: detection.options(), models: models) : nil
        } catch let error as MienError where error.code == .invalidOptions {
            throw ValidationError(error.message)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.modelProblem
        }
        let output = JSONLinesWriter()
        var failed = false
        var sources: [() throws -> any FrameSource] = inputs.map { path in
            { try InputSource.open(path: path, imageInterval: continuous ? interval : 0) }
        }
        if let camera { sources.append { try InputSource.openCamera(camera) } }
        for open in sources {
            let source: any FrameSource
            let analyzer: FaceAnalyzer?
            do {
                // Decoding the next frame overlaps the analysis of the current one.
                source = PrefetchingFrameSource(try open())
                let expressionOptions = try expressions || emotions ? ExpressionOptions() : nil
                analyzer =
                    detectorOnly
                    ? nil
                    : try FaceAnalyzer(
                        mode: mode(for: source), detection: detection.options(),
                        expressions: noBaseline ? expressionOptions?.withoutBaseline : expressionOptions,
                        emotions: emotions, appearance: appearance, models: models)
            } catch let error as MienError where [.modelMissing, .modelAltered, .modelInvalid].contains(error.code) {
                Diagnostics.report(error)
                throw ExitStatus.modelProblem
            } catch {
                Diagnostics.report(error)
                failed = true
                continue
            }
            source.drain(
                limit: maxFrames ?? .max,
                { frame in
                    if let analyzer {
                        let analysis = try analyzer.analyze(frame)
                        try output.write(
                            AnalysisRecord(
                                input: source.name, analysis: analysis, landmarks: landmarks, blendshapes: blendshapes))
                    } else if let detector {
                        try output.write(
                            DetectionRecord(input: source.name, frame: frame, faces: detector.detect(in: frame)))
                    }
                },
                onError: { error in
                    Diagnostics.report(error)
                    failed = true
                })
        }
        if failed { throw ExitStatus.inputFailed }
    }

    /// Videos and cameras are streams; still images stand alone unless `--continuous`.
    private func mode(for source: any FrameSource) -> FaceAnalyzer.RunningMode {
        switch source.info.kind {
        case .video, .camera, .pushed: .stream
        case .imageFolder: continuous ? .stream : .discreteImages
        case .image: .discreteImages
        }
    }
}
