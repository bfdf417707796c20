import ArgumentParser
import Foundation
import Logging
import Mien

/// `mien analyze`: every metric of every face in images, folders, videos or a camera, to JSON Lines, CSV
/// and a per-input summary.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyse faces (expressions, emoji, emotions, appearance) and write JSON Lines, CSV and summaries.",
        discussion: """
            Without --output, JSON Lines go to standard output, one frame per line, flushed as each frame is \
            done. With --output DIR, each input gets DIR/<name>.jsonl / .csv (per --format) and \
            DIR/<name>.summary.json, written under temporary names and renamed when complete; Ctrl-C stops \
            cleanly and completes the files for the frames done. --resume skips inputs whose files exist.
            """)

    /// Metric groups for `--metrics`.
    enum MetricGroup: String, CaseIterable, ExpressibleByArgument {
        case all, expressions, emoji, emotions, appearance, none

        var metrics: Set<Metric> {
            switch self {
            case .all: .all
            case .expressions: .allExpressions
            case .emoji: .allEmoji
            case .emotions: .allEmotions
            case .appearance: .allAppearance
            case .none: []
            }
        }
    }

    /// Output formats for `--format`.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case jsonl, csv
    }

    @Argument(help: "Images, folders of images and video files, in any mix.")
    var inputs: [String] = []

    @Option(help: "Read a camera: an index (0 = /dev/video0) or a device path.")
    var camera: String?

    @Option(help: "Stop each input after this many frames (cameras run until Ctrl-C otherwise).")
    var maxFrames: Int?

    @Option(help: "Frames analysed per second at most (default: every frame of files, 5 for a camera).")
    var rate: Double?

    @Option(
        parsing: .upToNextOption,
        help: "Metric groups: all (default), expressions, emoji, emotions, appearance, none.")
    var metrics: [MetricGroup] = [.all]

    @Option(parsing: .upToNextOption, help: "Output formats with --output: jsonl, csv (default: both).")
    var format: [Format] = [.jsonl, .csv]

    @Option(help: "Folder for the output files (created if missing). Without it, JSON Lines go to stdout.")
    var output: String?

    /// How the images of a folder relate (Affdex's discrete and continuous image modes).
    enum ImageMode: String, EnumerableFlag {
        case discrete, continuous

        static func help(for value: ImageMode) -> ArgumentHelp? {
            switch value {
            case .discrete: "Every image of a folder stands alone (the default)."
            case .continuous: "The images of a folder are frames of one stream (tracked, one per --interval seconds)."
            }
        }
    }

    @Flag var imageMode: ImageMode = .discrete

    @Option(help: "Seconds between the images of a --continuous folder.")
    var interval = 1.0

    @Option(
        help:
            "Annotated pictures and videos: a folder (<name>.png, <name>.mp4 inside) or, for one input, a .png/.mp4 file. Boxes coloured by valence, IDs, points, pose axes, emotions."
    )
    var annotate: String?

    @Flag(help: "Skip inputs whose output files are already complete.")
    var resume = false

    @Option(help: "large: faces near the camera; small: small or distant faces.")
    var faceMode: FaceMode = .large

    @Option(help: "Track at most this many faces (1...64).")
    var maxFaces = 5

    @Flag(
        help:
            "Pictures (not videos or --continuous folders): when no face is detected, read the whole picture as one face (for face crops such as FER-2013's 48x48 pictures, too tight for the detector)."
    )
    var wholePictureFallback = false

    @Option(
        help:
            "Write a self-contained HTML page (charts of emotions, valence and engagement per face, thumbnails, summary tables) to this file."
    )
    var report: String?

    @Option(help: "Inputs analysed at the same time (each uses its own detector).")
    var jobs = 1

    @Flag(help: "Notes on standard error as inputs start, are skipped and finish.")
    var verbose = false

    func validate() throws {
        if inputs.isEmpty && camera == nil { throw ValidationError("give at least one input, or --camera") }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        if interval <= 0 { throw ValidationError("--interval must be positive") }
        if resume && output == nil { throw ValidationError("--resume needs --output") }
        if let annotate, inputs.count + (camera == nil ? 0 : 1) > 1, Annotator.namesFile(annotate) {
            throw ValidationError("--annotate names one file, but there are several inputs: give a folder")
        }
        if jobs < 1 || jobs > 64 { throw ValidationError("--jobs must be within 1...64") }
        if let report, !report.lowercased().hasSuffix(".html") {
            throw ValidationError("--report names an .html file (got \(report))")
        }
        var isDirectory: ObjCBool = false
        if let report, FileManager.default.fileExists(atPath: report, isDirectory: &isDirectory), isDirectory.boolValue
        {
            throw ValidationError("--report \(report) is a folder; give the page's file name")
        }
        if let output, FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue
        {
            throw ValidationError("--output \(output) is a file; give a folder")
        }
        do {
            _ = try detectorOptions()
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    private func detectorOptions() throws -> DetectorOptions {
        try DetectorOptions(
            maximumFaces: maxFaces, faceMode: faceMode, maxProcessRate: rate,
            metrics: metrics.reduce(into: Set<Metric>()) { $0.formUnion($1.metrics) },
            wholePictureFallback: wholePictureFallback)
    }

    func run() throws {
        let options = try detectorOptions()
        let models: ModelStore
        do {
            models = try ModelStore()
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.modelProblem
        }
        let annotateFolder = annotate.map {
            Annotator.namesFile($0) ? URL(fileURLWithPath: $0).deletingLastPathComponent().path : $0
        }
        for folder in [output, annotateFolder].compactMap({ $0 }) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        var names: [String] = inputs
        if let camera { names.append("camera:\(camera)") }
        let job = InputJob(
            options: options, models: models, outputFolder: output, formats: Set(format), annotateTarget: annotate,
            report: report != nil, maxFrames: maxFrames, resume: resume, continuous: imageMode == .continuous,
            interval: interval,
            interruption: Interruption(), progress: ProgressBoard(total: names.count))
        let outcomes = InputQueue(names: names, jobs: jobs).run { name in
            analyse(name, job: job)
        }
        if let report {
            let parts = outcomes.compactMap(\.report)
            do {
                let file = try AtomicFile(path: report)
                try file.write(HTMLReport.render(parts, generator: MienVersion.string))
                try file.commit()
                Diagnostics.logger.info("report: \(report)")
            } catch {
                Diagnostics.report(error)
                throw ExitStatus.inputFailed
            }
        }
        if outcomes.contains(where: { $0.status == .modelProblem }) { throw ExitStatus.modelProblem }
        if job.interruption.requested { throw ExitCode(130) }
        if outcomes.contains(where: { $0.status == .failed }) { throw ExitStatus.inputFailed }
    }

    /// One input, start to end; never throws (its error is reported and becomes its status).
    private func analyse(_ name: String, job: InputJob) -> InputOutcome {
        if job.interruption.requested { return InputOutcome(status: .skipped) }
        let plan = job.plan(for: name)
        if resume, !plan.files.isEmpty, plan.files.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) {
            Diagnostics.logger.warning("\(name): outputs complete, skipped (--resume)")
            return InputOutcome(status: .skipped)
        }
        Diagnostics.logger.info("\(name): started")
        do {
            return InputOutcome(status: .done, report: try job.run(name))
        } catch let failure as InputFailure {
            Diagnostics.report(failure.error)
            return InputOutcome(status: status(of: failure.error), report: failure.report)
        } catch {
            Diagnostics.report(error)
            return InputOutcome(status: status(of: error))
        }
    }

    private func status(of error: any Error) -> InputOutcome.Status {
        guard let error = error as? MienError else { return .failed }
        return [.modelMissing, .modelAltered, .modelInvalid].contains(error.code) ? .modelProblem : .failed
    }
}
