import ArgumentParser
import Foundation
import Logging
import Mien
import MienCore

/// `mien analyze`: every metric of every face in images, folders, videos or a camera, to JSON Lines, CSV,
/// a per-input summary, an HTML report and annotated pictures or videos.
///
/// A thin layer: flags become `DetectorOptions` and writers; each input is one `Detector` run.
struct Analyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyse faces (expressions, emoji, emotions, appearance) and write JSON Lines, CSV and summaries.",
        discussion: """
            Without --output, JSON Lines go to standard output, one frame per line, flushed as each frame is \
            done. With --output DIR, each input gets DIR/<name>.jsonl / .csv (per --format) and \
            DIR/<name>.summary.json, written under temporary names and renamed when complete; Ctrl-C stops \
            cleanly and completes the files for the frames done. --resume skips inputs whose files exist.
            """)

    /// Output formats for `--format`.
    enum Format: String, CaseIterable {
        case jsonl, csv, openface

        /// What `--format` writes when not given.
        static let standard: Set<Format> = [.jsonl, .csv]
    }

    @OptionGroup var source: InputArguments

    @OptionGroup var analysis: AnalysisArguments

    @Option(
        help: """
            Output formats with --output, repeated or comma-separated: jsonl, csv (default: both), openface \
            (OpenFace 2.2's CSV, <name>.openface.csv: action units, pose, gaze, the 68 points; docs/metrics.md).
            """)
    var format: [String] = []

    @Option(help: "Folder for the output files (created if missing). Without it, JSON Lines go to stdout.")
    var output: String?

    @Option(
        help: """
            Analyse share K of N of the inputs (K from 0), balanced by size and independent of the list's order; \
            'auto' reads it from a Slurm, Kubernetes Indexed Job or AWS Batch array task's environment.
            """)
    var shard: String?

    @Option(
        help: """
            With --shard auto: how many shards there are. Required on Kubernetes and AWS Batch; on Slurm it makes \
            the array task ID the shard index, which resubmitting one index (sbatch --array=7) needs.
            """)
    var shardCount: Int?

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

    @Flag(help: "Skip inputs whose output files are already complete; continue an incomplete one after its last frame.")
    var resume = false

    @Option(
        help: ArgumentHelp(
            "Seconds between the analysis snapshots kept beside each video's outputs (.<name>.snapshot, deleted once the input is complete), from which --resume goes on instead of analysing the earlier frames again (0: after every frame).",
            valueName: "seconds"))
    var snapshotEvery = OutputPlan.defaultSnapshotInterval

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
        if interval <= 0 || !interval.isFinite { throw ValidationError("--interval must be a positive number") }
        if resume && output == nil { throw ValidationError("--resume needs --output") }
        if !(snapshotEvery >= 0 && snapshotEvery.isFinite) {
            throw ValidationError("--snapshot-every must be 0 or a positive number of seconds")
        }
        if shard != nil && output == nil {
            throw ValidationError("--shard needs --output (each task records its share's manifest there)")
        }
        _ = try chosenShard()
        let several = source.inputs.count + (source.camera == nil ? 0 : 1) > 1 || source.inputsFrom != nil
        if let annotate, several, AnnotationWriter.namesFile(annotate) {
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
        _ = try formats()
        _ = try detectorOptions()
    }

    private func formats() throws -> Set<Format> {
        let chosen = try ListOption.parse(format, option: "--format", as: Format.self)
        return chosen.isEmpty ? Format.standard : Set(chosen)
    }

    private func detectorOptions() throws -> DetectorOptions {
        // OpenFace's CSV has the 68 points (x_0 ... y_67): with it, the landmarks are on.
        try analysis.detectorOptions(landmarks: try formats().contains(.openface))
    }

    /// The shard `--shard` asks for, if any.
    func chosenShard() throws -> Shard? {
        guard let shard else { return nil }
        do {
            return shard == "auto"
                ? try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount)
                : try Shard(shard)
        } catch let error as MienError {
            throw ValidationError("--shard \(shard): \(error.message)")
        }
    }

    /// Every setting the results depend on, for the shard manifest.
    private func settings(_ options: DetectorOptions) throws -> [String: String] {
        options.settings(run: try source.runSettings()).merging([
            "imageMode": imageMode.rawValue, "interval": imageMode == .continuous ? "\(interval)" : "none",
        ]) { $1 }
    }

    /// This task's inputs: all of them, or its share under `--shard`, whose manifest it then starts.
    private func share(
        of allNames: [String], outputNames: OutputNames, options: DetectorOptions, formats: Set<Format>
    ) throws -> ([String], ManifestRecorder?) {
        guard let shard = try chosenShard(), let output else { return (allNames, nil) }
        let names = shard.select(allNames)
        Diagnostics.logger.notice("shard \(shard): \(names.count) of \(Set(allNames).count) inputs")
        do {
            let recorder = try ManifestRecorder(
                output: output, shard: shard, allInputs: allNames, share: names, names: outputNames,
                settings: try settings(options), outputs: formats.map(\.rawValue).sorted() + ["summary", "report"])
            return (names, recorder)
        } catch let error as MienError where error.code == .invalidArgument {
            throw ValidationError(error.description)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
    }

    func run() async throws {
        // Listing the inputs, starting a shard's manifest, finding the models and making the folders touch files:
        // off the cooperative pool, as the manifest's last write and the report after the runs.
        let (names, recorder, plan, runner) = try await BlockingWork.run { try self.prepared() }
        let interruption = runner.interruption
        let outcomes = await InputQueue(names: names, jobs: jobs).run { name in
            if interruption.requested { return InputOutcome(status: .notStarted) }
            let outcome = await plan.analyse(name, with: runner)
            if let recorder { await BlockingWork.run { recorder.record(name, outcome) } }
            return outcome
        }
        try await BlockingWork.run { try self.finish(outcomes, recorder: recorder, interruption: interruption) }
    }

    /// Everything before the runs: the inputs (this task's share), the manifest recorder, the plan and the runner.
    private func prepared() throws -> ([String], ManifestRecorder?, OutputPlan, InputRunner) {
        let options = try detectorOptions()
        let formats = try formats()
        let allNames = try source.names()
        let outputNames = OutputNames(allNames)
        let (names, recorder) = try share(of: allNames, outputNames: outputNames, options: options, formats: formats)
        let models = try CommandModels.load()
        let annotateFolder = annotate.map {
            AnnotationWriter.namesFile($0) ? URL(fileURLWithPath: $0).deletingLastPathComponent().path : $0
        }
        for folder in [output, annotateFolder].compactMap({ $0 }) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let runner = InputRunner(
            options: options, settings: try source.runSettings(), models: models,
            imageInterval: imageMode == .continuous ? interval : nil, interruption: Interruption())
        let plan = OutputPlan(
            folder: output, formats: formats, annotate: annotate, report: report != nil, reportParts: recorder != nil,
            resume: resume, board: ProgressBoard(total: names.count), names: outputNames,
            previous: recorder?.previous ?? [:], snapshotInterval: snapshotEvery)
        return (names, recorder, plan, runner)
    }

    /// After the runs: the shard's manifest completed, the report written, and the exit status.
    private func finish(_ outcomes: [InputOutcome], recorder: ManifestRecorder?, interruption: Interruption) throws {
        if !interruption.requested { recorder?.finish() }
        if let report {
            do {
                let file = try AtomicFile(path: report)
                try file.write(HTMLReport.render(outcomes.compactMap(\.report), generator: MienVersion.string))
                try file.commit()
                Diagnostics.logger.info("report: \(report)")
            } catch {
                Diagnostics.report(error)
                throw ExitStatus.inputFailed
            }
        }
        if outcomes.contains(where: { $0.status == .modelProblem }) { throw ExitStatus.modelProblem }
        if interruption.requested { throw interruption.exitCode }
        if outcomes.contains(where: { $0.status == .failed }) { throw ExitStatus.inputFailed }
        if recorder?.manifestWriteFailed == true { throw ExitStatus.inputFailed }
    }
}
