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

    @OptionGroup var detection: DetectionArguments

    func validate() throws {
        if inputs.isEmpty && camera == nil { throw ValidationError("give at least one input, or --camera") }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
    }

    func run() throws {
        let detector: BlazeFaceDetector
        do {
            detector = try BlazeFaceDetector(options: detection.options(), models: ModelStore())
        } catch let error as MienError where error.code == .invalidOptions {
            throw ValidationError(error.message)
        } catch let error as MienError {
            Diagnostics.report(error)
            throw ExitStatus.modelProblem
        }
        let output = JSONLinesWriter()
        var failed = false
        var sources: [() throws -> any FrameSource] = inputs.map { path in { try InputSource.open(path: path) } }
        if let camera { sources.append { try InputSource.openCamera(camera) } }
        for open in sources {
            let source: any FrameSource
            do {
                // Decoding the next frame overlaps detection on the current one.
                source = PrefetchingFrameSource(try open())
            } catch {
                Diagnostics.report(error)
                failed = true
                continue
            }
            source.drain(
                limit: maxFrames ?? .max,
                { frame in
                    let faces = try detector.detect(in: frame)
                    try output.write(DetectionRecord(input: source.name, frame: frame, faces: faces))
                },
                onError: { error in
                    Diagnostics.report(error)
                    failed = true
                })
        }
        if failed { throw ExitStatus.inputFailed }
    }
}
