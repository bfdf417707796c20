public import ArgumentParser
import Foundation
import Logging
import Mien
import MienCore
import MienStudies

/// `mien study`: many people watching the same stimulus.
///
/// Each recording of the manifest is analysed once, as
/// `mien analyze` would, into `DIR/recordings/` (reused when already complete), then every participant's face is
/// put on stimulus time and the panel aggregated into curves, moments and correlations (`docs/studies.md`).
///
/// A thin layer: the analyses are `OutputPlan` and `InputRunner`, the aggregation is the library's `Study`.
struct StudyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aggregate",
        abstract: "Analyse a panel's recordings of the same stimuli and aggregate them on stimulus time.",
        discussion: """
            MANIFEST is a CSV file with the columns recording, participant, stimulus, onset (seconds into the \
            recording when the stimulus started) and optionally duration and group. DIR gets recordings/ (each \
            recording's JSON Lines, CSV, events and summary, reused when complete), curves.csv, \
            participants.csv, moments.csv, isc.csv (segments.csv with --segments), study.json and study.html. \
            On a cluster, analyse the recordings with `mien analyze --shard auto --output DIR/recordings \
            --inputs-from LIST` (LIST from --list-recordings, same analysis flags); `mien study` then only aggregates. \
            `mien study init` makes a study folder to collect a panel from a link (mien serve --studies).
            """)

    @Argument(
        help:
            "The manifest (CSV), or a study folder collected by mien serve --studies (its manifest.csv), or with --store a collected study's name."
    )
    var manifest: String

    @Option(
        help:
            "Aggregate the collected study named by the argument straight from this PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE, as mien serve --store; default: $MIEN_STUDIES_URL when the argument is not a file or folder)."
    )
    var store: String?

    @Option(help: "A file whose first line is the --store URL (keeps its password off the command line).")
    var storeFile: String?

    @Option(help: "Folder for the study (created if missing).")
    var output: String?

    @OptionGroup var analysis: AnalysisArguments

    @Option(help: "Seconds per time bin (whole milliseconds).")
    var bin: Double = StudySettings.standard.bin

    @Option(help: "Least share (0...1) of the stimulus's time with the participant's face measured.")
    var minFaceShare: Double = StudySettings.standard.minimumFaceShare

    @Option(help: "Seconds a difference or response must last to be listed, on top of its test.")
    var minDifference: Double = StudySettings.standard.minimumDifference

    @Option(help: "Score points a curve's peak must rise above its bases to be a moment.")
    var peakProminence: Double = StudySettings.standard.peakProminence

    @Option(help: "Error rate the tests of differences, responses and ISC control.")
    var alpha: Double = StudySettings.standard.alpha

    @Option(help: "Permutations and bootstrap resamples per test (every relabelling when there are fewer).")
    var permutations: Int = StudySettings.standard.permutations

    @Option(help: "Seed of the permutations and resamples: the same seed gives the same study.")
    var seed: UInt64 = StudySettings.standard.seed

    @Option(
        help: ArgumentHelp(
            "How the tests over bins, metrics and groups are corrected.",
            discussion:
                "cluster: cluster-based permutation test, family-wise error (default). fdr: per-bin permutation p with Benjamini-Hochberg, false discovery rate."
        ))
    var correction: StudySettings.Correction = StudySettings.standard.correction

    @Option(help: "Seconds at the start of the stimulus that are each participant's baseline for responses (0: none).")
    var baseline: Double = StudySettings.standard.baseline

    @Option(help: "Fewest bins measured in 2 or more participants for an inter-subject correlation.")
    var iscMinBins: Int = StudySettings.standard.iscMinimumBins

    @Option(help: "Fewest participants in a bin for study.html to draw its interval (fewer: the curve is marked thin).")
    var minParticipants: Int = StudySettings.standard.minimumParticipants

    @Option(
        parsing: .upToNextOption,
        help:
            "Metrics study.html charts, in order (catalog names, e.g. expressions.smile valence); default: those with the most moments."
    )
    var chart: [String] = []

    @Option(help: "A CSV of named scenes (stimulus, name, start, end in seconds of stimulus time): figures per scene.")
    var segments: String?

    @Option(help: "The study's name at the top of study.html (default: a collected study's folder name).")
    var title: String?

    @Option(
        help: ArgumentHelp(
            "Moments of a stimulus drawn on every chart and kept in marks.csv: [STIMULUS:]NAME=SECONDS[,SECONDS...] (brand=12.4,27; the stimulus may be left out when there is one), or a file as marks.csv holds them (stimulus,mark,time); repeat for more. A collected study's own marks (mien study init --marks) are used unless given.",
            valueName: "marks"))
    var marks: [String] = []

    @Option(
        help: ArgumentHelp(
            "What a group is, in words, for study.html: GROUP=TEXT (A=\"Women 18-34\"); repeat for each. A collected study's own (mien study init --group-label) are used unless given.",
            valueName: "label"))
    var groupLabel: [String] = []

    @Option(
        help:
            "A collected study: least share (0...1) of a stimulus an incomplete viewer must have been measured for to be included (default: the study's minimum share)."
    )
    var minMeasured: Double?

    @Option(
        help: ArgumentHelp(
            "A collected study: the viewing rules a viewer must meet to be included: 'off', or the defaults changed by NAME=VALUE pairs (hidden, fullscreen, focus: shares 0...1 of a stimulus; stalls: seconds; camera-fps; timing: milliseconds; still: seconds of a face with no natural movement, off unless given; a value 'off' drops the rule).",
            valueName: "rules"))
    var quality = "hidden=0.1,stalls=3,camera-fps=5,timing=250"

    @Flag(
        help:
            "Curves, tests and correlations over every frame of the face; by default frames where the viewer did not watch (onScreen below 50, eyes shut past a blink) are left out."
    )
    var allFrames = false

    @Option(
        help:
            "The smallest response or difference study.html charts, in the metric's points (0-100 scale): smaller ones that pass their test stay in moments.csv, off the page."
    )
    var minEffect = StudySettings.standard.minimumEffect

    @Option(
        help:
            "The least share (0-1) of a stimulus a participant must watch (facing the screen, eyes open, the face settled; with --all-frames, measured and settled) for their curves and features of it; below it they are excluded from that stimulus, saying why."
    )
    var minWatched = StudySettings.defaultMinimumWatchedShare

    @Option(
        help:
            "Which of a collected participant's viewings of a stimulus the study reads (first-complete: the first measured enough, its viewing rules judged over every viewing; first-only: a participant shown the stimulus again is excluded from it)."
    )
    var exposure: StudySettings.Exposure = .firstComplete

    @Option(
        help:
            "The least difference from a norm's median that --norms marks with an arrow, in standard deviations of the norm's stimuli (the figure's own units are in norms.csv's minimum)."
    )
    var normMinDifference = 0.5

    @Option(
        help: ArgumentHelp(
            "Groups by what the panel said of each participant: the manifest's attribute.NAME column (a collected study's --attribute), each value a group, in place of the link's groups; participants without it count in the whole panel only.",
            valueName: "name"))
    var segmentBy: String?

    @Option(
        help: ArgumentHelp(
            "Place each stimulus against this norm (mien norms add): a norms file, or with --store a norm's name in the study's database. norms.csv, and a line in study.html's summary.",
            valueName: "norms"))
    var norms: String?

    @Option(
        help: ArgumentHelp(
            "Only the norm's stimuli with this tag, KEY=VALUE (category=snacks); repeat: all of them.",
            valueName: "tag"))
    var normFilter: [String] = []

    @Option(
        help: ArgumentHelp(
            "Weight a collected study's participants to a population's margins of an attribute their link gave, NAME=VALUE:SHARE,... (shares summing to 1; repeat per attribute): raked, with weights.csv and the effective sample size; the KPIs and the verdict are then weighted too. Curves, tests, comparisons and norms stay unweighted.",
            valueName: "margin"))
    var weight: [String] = []

    @Option(help: "With --weight: the largest weight allowed, as a multiple of the mean weight (1).")
    var weightCap = 5.0

    @Option(
        help: ArgumentHelp(
            "Also print study.html to this PDF, each stimulus's verdict on a page of its own first, with a headless Chromium found on PATH (chromium, chromium-browser, google-chrome); without one, says so (exit status 1) once the rest is written.",
            valueName: "file"))
    var pdf: String?

    @Option(
        help: ArgumentHelp(
            "Also write each chart of study.html into this folder, as SVG and, with a headless Chromium found on PATH, as PNG at twice its size.",
            valueName: "folder"))
    var exportCharts: String?

    @Option(help: "Recordings analysed at the same time (each uses its own detector).")
    var jobs = 1

    @Flag(help: "Print the recordings to analyse, one per line (for mien analyze --inputs-from), and stop.")
    var listRecordings = false

    @Flag(help: "Notes on standard error as recordings start, are reused and finish.")
    var verbose = false

    func run() async throws {
        // Reading the manifest, a database (through its own bridge) and writing the study block: off the pool;
        // only the recordings' runs are awaited here.
        guard let analysis = try await BlockingWork.run({ try self.prepared() }) else { return try await deck() }
        let clock = ContinuousClock()
        let analysisStart = clock.now
        let (plan, runner, interruption) = (analysis.plan, analysis.runner, analysis.runner.interruption)
        let outcomes = await InputQueue(names: analysis.manifest.recordings, jobs: jobs).run { name in
            if interruption.requested { return InputOutcome(status: .notStarted) }
            return await plan.analyse(name, with: runner)
        }
        let analysisTime = clock.now - analysisStart
        try await aggregate(analysis, outcomes: outcomes, analysisTime: analysisTime)
        try await deck()
    }

    /// Everything before the analysis; nil when there is nothing to analyse (a collected study or one in a
    /// database, aggregated here; `--list-recordings`; no `--output`).
    private func prepared() throws -> Analysis? {
        if let url = try storeURL() {
            Secret.warnIfPasswordInArguments(store, option: "--store", command: "mien study")
            guard let output else { throw ValidationError("--output is required (the study's folder)") }
            let segments: [StudySegment]
            do {
                segments = try self.segments.map(StudySegments.read(path:)) ?? []
            } catch let error as MienError {
                throw ValidationError(error.description)
            }
            try aggregate(
                store: url, segments: segments, settings: try settings(), output: output, norm: try norm(store: url))
            return nil
        }
        if let collected = manifestSource.collected {
            do {
                if let record = try StudyRecord.read(collected) {
                    throw ValidationError(record.refusal(folder: manifest))
                }
            } catch let error as MienError {
                throw ValidationError(error.description)
            }
        }
        let (given, segments) = try inputs()
        let manifest = try segmented(given)
        if listRecordings {
            for recording in manifest.recordings { print(recording) }
            return nil
        }
        guard let output else { return nil }
        for problem in manifest.problems {
            Diagnostics.logger.warning("\(self.manifest) line \(problem.line): \(problem.message); row left out")
        }
        let options = try analysis.detectorOptions()
        var settings = try settings()
        // The norm is read before anything is analysed: a store that cannot be read stops the run at once.
        let norm = try norm(store: nil)
        if let collected = manifestSource.collected {
            try aggregate(
                collected: collected, manifest: manifest, segments: segments, settings: settings, output: output,
                norm: norm)
            return nil
        }
        guard weight.isEmpty else {
            throw ValidationError(
                "--weight weights a collected study's KPIs (its participants' link attributes); \(self.manifest) is a manifest of recordings"
            )
        }
        settings.groupLabels = try groupLabels(groups: Array(Set(manifest.rows.compactMap(\.group))).sorted())
        // A stimulus whose rows give no duration is checked only for marks before its start.
        settings.marks = try resolvedMarks(
            durations: Dictionary(
                manifest.rows.map { ($0.stimulus, $0.duration ?? .infinity) }, uniquingKeysWith: { max($0, $1) }))
        let folder = URL(fileURLWithPath: output).appendingPathComponent("recordings").path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            Diagnostics.report(MienError(.ioFailure, "cannot create the study's folder", input: folder))
            throw ExitStatus.inputFailed
        }
        let models = try CommandModels.load()
        let interruption = Interruption()
        let runner = InputRunner(options: options, models: models, imageInterval: nil, interruption: interruption)
        let recordings = manifest.recordings
        let plan = {
            var plan = OutputPlan(
                folder: folder, formats: [.jsonl, .csv], annotate: nil, report: false, resume: true,
                board: ProgressBoard(total: recordings.count), names: OutputNames(recordings))
            plan.reuseReason = "analysed by an earlier mien study, reused"
            plan.snapshotInterval = OutputPlan.defaultSnapshotInterval
            return plan
        }()
        return Analysis(
            manifest: manifest, segments: segments, options: options, settings: settings, norm: norm, output: output,
            folder: folder, plan: plan, runner: runner)
    }

    static func format(_ duration: Duration) -> String {
        String(format: "%.2f s", ProgressBoard.seconds(duration))
    }
}

extension StudySettings.Correction: ExpressibleByArgument {}
extension StudySettings.Exposure: ExpressibleByArgument {}
