import ArgumentParser
import Foundation
import Mien
import MienCore

/// `mien detect`: prints the faces found in each frame as JSON Lines, the same per-frame JSON as
/// `mien analyze` (a `DetectorResult`, `Schema/detector-result.schema.json`).
struct Detect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find faces and print one JSON object per frame (JSON Lines) on standard output.",
        discussion: """
            Inputs are image files, folders of images and video files, in any mix. Errors name their input \
            and go to standard error; the remaining inputs are still processed.
            """)

    @OptionGroup var source: InputArguments

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

    /// One flag per metric group, the words every surface uses (`--expressions`, `--emoji`, ...).
    @Flag var groups: [MetricGroup] = []

    @Flag(help: "With --expressions, score every frame against population norms instead of each face's baseline.")
    var noBaseline = false

    @Flag(help: "With --expressions, also print MediaPipe's 52 blendshapes (0...1).")
    var blendshapes = false

    @OptionGroup var detection: DetectionArguments

    func validate() throws {
        if interval <= 0 || !interval.isFinite { throw ValidationError("--interval must be a positive number") }
        if (noBaseline || blendshapes) && groups.allSatisfy({ $0 != .expressions && $0 != .emoji && $0 != .emotions }) {
            throw ValidationError("--no-baseline and --blendshapes need --expressions, --emoji or --emotions")
        }
        if detectorOnly && (!groups.isEmpty || landmarks) {
            throw ValidationError(
                "--detector-only cannot measure landmarks or metrics (--\(MetricGroup.allCases.map(\.rawValue).joined(separator: ", --")))"
            )
        }
        _ = try detectorOptions()
    }

    private func detectorOptions() throws -> DetectorOptions {
        let metrics = groups.reduce(into: Set<Metric>()) { $0.formUnion($1.metrics) }
        do {
            return try DetectorOptions(
                detection: detection.options(), metrics: metrics, baseline: !noBaseline, landmarks: landmarks,
                blendshapes: blendshapes, detectionOnly: detectorOnly)
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        // Listing the inputs and finding the models touch files: off the cooperative pool.
        let (names, runner) = try await BlockingWork.run {
            let options = try detectorOptions()
            let names = try source.names()
            let models = try CommandModels.load()
            let runner = InputRunner(
                options: options, settings: try source.runSettings(), models: models,
                imageInterval: continuous ? interval : nil, interruption: Interruption())
            return (names, runner)
        }
        var failed = false
        for name in names {
            if runner.interruption.requested { break }
            let skips = SkipReporter(input: name)
            let end = await runner.run(name, writers: [skips, JSONLinesWriter(stream: Console.output)])
            if InputRunner.isModelProblem(end.error) { throw ExitStatus.modelProblem }
            failed = failed || end.error != nil || skips.unreadablePictures
        }
        if runner.interruption.requested { throw runner.interruption.exitCode }
        if failed { throw ExitStatus.inputFailed }
    }
}
