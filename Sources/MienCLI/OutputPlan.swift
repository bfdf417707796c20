import Foundation
import Logging
import Mien
import MienCore

/// What `mien analyze` writes for each input, as writers: JSON Lines (a file, or standard output), CSV,
/// the summary, the report's part, annotated pictures or video, and progress.
struct OutputPlan: Sendable {
    /// Folder of the output files; nil = JSON Lines to standard output.
    var folder: String?
    var formats: Set<Analyze.Format>
    var annotate: String?
    var report: Bool
    /// Under `--shard`: each input's report part as `<name>.report.json`, for `mien merge`.
    var reportParts = false
    /// `--resume`: skip complete inputs, continue an incomplete one after its last finished frame.
    var resume: Bool
    var board: ProgressBoard
    /// The output files' names, settled over the whole list of inputs.
    var names: OutputNames
    /// Under `--shard`, how an earlier run of the same shard left each input (its manifest), so that
    /// `--resume` continues an input a signal stopped even though its files were completed.
    var previous: [String: ShardManifest.Entry] = [:]
    /// Seconds between the analysis snapshots kept beside a video's outputs for `--resume` (nil: none kept).
    var snapshotInterval: Double?
    /// `--snapshot-every`'s default, seconds: what a killed run loses at most (besides the frames in flight),
    /// against the time spent keeping snapshots (measured in `docs/cluster.md`).
    static let defaultSnapshotInterval = 1.0
    /// How a skipped input is explained: `--resume` for `mien analyze`; `mien study` reuses on its own.
    var reuseReason = "--resume"

    /// The output files of `input` (named after its last path component).
    func files(for input: String) -> OutputFiles {
        guard let folder else { return OutputFiles() }
        let base = names[input]
        func path(_ suffix: String) -> String {
            URL(fileURLWithPath: folder).appendingPathComponent(base + suffix).path
        }
        return OutputFiles(
            jsonl: formats.contains(.jsonl) ? path(".jsonl") : nil, csv: formats.contains(.csv) ? path(".csv") : nil,
            events: formats.contains(.csv) ? path(".events.csv") : nil, summary: path(".summary.json"),
            reportPart: reportParts ? path(".report.json") : nil,
            openface: formats.contains(.openface) ? path(".openface.csv") : nil)
    }

    /// One input, start to end: its writers, a checkpoint to continue from, one detector run.
    ///
    /// The files' checks, the writers' creation and a resumed input's replay block on the disk: they go through
    /// `BlockingWork`; the run is awaited.
    func analyse(_ name: String, with runner: InputRunner) async -> InputOutcome {
        let prepared = await BlockingWork.run { prepare(name, with: runner) }
        switch prepared {
        case .settled(let outcome):
            return outcome
        case .ready(let input):
            // The writers go to the run; what is read after it is Sendable and taken first.
            let (settings, skips, report) = (input.settings, input.skips, input.report)
            let end = await runner.run(name, writers: input.writers, settings: settings)
            return outcome(of: end, skips: skips, report: report)
        }
    }

    /// An input before its run: settled without one (already done, or its outputs could not be made), or its
    /// writers and where its run starts.
    private enum Preparation {
        case settled(InputOutcome)
        case ready(Ready)

        struct Ready {
            var writers: [any ResultWriter]
            var settings: RunSettings
            var skips: SkipReporter
            var report: ReportWriter?
        }
    }

    private func prepare(_ name: String, with runner: InputRunner) -> sending Preparation {
        let files = files(for: name)
        let complete = !files.all.isEmpty && files.all.allSatisfy { FileManager.default.fileExists(atPath: $0) }
        // Only a summary that says the input ended `complete` lets --resume skip it: files committed by a run
        // that failed part-way (a truncated video) hold only the frames before the failure.
        let ended = complete ? files.summary.flatMap(Self.ending(inSummary:)) : nil
        let stoppedBefore = previous[name]?.status == .interrupted || ended == "stopped"
        if resume, complete, !stoppedBefore {
            if ended == "complete" {
                Diagnostics.logger.warning("\(name): outputs complete, skipped (\(reuseReason))")
                return .settled(
                    InputOutcome(
                        status: .alreadyDone,
                        frames: previous[name]?.frames ?? files.summary.flatMap(Self.frames(inSummary:))))
            }
            Diagnostics.logger.warning(
                "\(name): the earlier run did not finish it (\(ended ?? "its summary does not say how it ended")); analysed again (--resume)"
            )
        }
        // A checkpoint is only used where frames can be found again by index: not for cameras, and not when
        // annotating (the annotated video would lack the frames before the resume point). A killed run left
        // temporary files; one stopped by a signal completed its files, and its manifest says so.
        var found = resume ? files.jsonl.flatMap { ResumeCheckpoint.load(jsonlPath: $0, outputs: files.all) } : nil
        if resume, found == nil, complete, stoppedBefore, let jsonl = files.jsonl {
            found = ResumeCheckpoint.load(committed: jsonl)
        }
        let checkpoint = name.hasPrefix(InputRunner.cameraPrefix) || annotate != nil ? nil : found
        if found != nil && checkpoint == nil { found?.removeLeftovers() }
        var settings = runner.settings
        settings.snapshotInterval = snapshotInterval
        let snapshotFile =
            snapshotInterval == nil ? nil : snapshotFile(for: name, settings: runner.options.settings(run: settings))
        Diagnostics.logger.info("\(name): started")
        let skips = SkipReporter(input: name)
        let reportWriter = report || reportParts ? ReportWriter(input: name) : nil
        var writers: [any ResultWriter] = [ProgressWriter(board: board, input: name), skips]
        do {
            if folder == nil {
                writers.append(JSONLinesWriter(stream: Console.output))
            }
            writers += try files.writers(input: name, report: reportWriter, generator: "mien analyze")
            if let annotate { writers.append(AnnotationWriter(target: annotate, input: name)) }
            if let snapshotFile { writers.append(snapshotFile) }
            if let checkpoint {
                try resume(
                    name, from: checkpoint, snapshot: snapshotFile, writers: writers, models: runner.models,
                    options: runner.options, settings: &settings)
            }
        } catch {
            let failure = (error as? MienError)?.naming(name) ?? MienError(.ioFailure, "\(error)", input: name)
            for writer in writers { writer.fail(failure) }
            Diagnostics.report(failure)
            return .settled(InputOutcome(status: .failed, error: failure.description))
        }
        return .ready(.init(writers: writers, settings: settings, skips: skips, report: reportWriter))
    }

    /// What became of an input whose run ended `end`.
    private func outcome(of end: InputEnd, skips: SkipReporter, report reportWriter: ReportWriter?) -> InputOutcome {
        var part = report ? reportWriter?.part : nil
        // The report writer records how the input ended, but not another writer failing to commit after it.
        if part != nil, case .failed(let error) = end { part?.problem = error.description }
        let status: InputOutcome.Status
        var problem = end.error?.description
        if InputRunner.isModelProblem(end.error) {
            status = .modelProblem
        } else if end.error != nil || skips.unreadablePictures {
            status = .failed
            problem = problem ?? "some pictures of the folder could not be read"
        } else if end == .stopped {
            status = .interrupted
            problem = "stopped by a signal"
        } else {
            status = .done
        }
        return InputOutcome(status: status, report: part, frames: skips.frames, error: problem)
    }

    /// How the run that wrote a summary file ended (`InputSummary.ended`: complete, stopped or failed), if
    /// the file says.
    static func ending(inSummary path: String) -> String? { summaryField("ended", of: path) as? String }

    /// The frame count of a summary file (`InputSummary`'s `frames`), if it can be read.
    static func frames(inSummary path: String) -> Int? { summaryField("frames", of: path) as? Int }

    /// One top-level field of a summary file; nil when the file cannot be read (then the input is analysed
    /// again, never skipped).
    private static func summaryField(_ name: String, of path: String) -> Any? {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object[name]
    }
}
