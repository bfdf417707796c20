import Foundation
import Mien
import MienCore
import MienStudies

/// `mien study` on a manifest: after the recordings' runs, their results read back (in parallel, `--jobs`), the
/// study computed and written.
extension StudyCommand {
    /// A study whose recordings are to be analysed: what `prepared()` settled before the runs.
    struct Analysis: Sendable {
        var manifest: StudyManifest
        var segments: [StudySegment]
        var options: DetectorOptions
        var settings: StudySettings
        var norm: NormComparison.Norm?
        var output: String
        var folder: String
        var plan: OutputPlan
        var runner: InputRunner
    }

    /// The recordings analysed: the study aggregated and written.
    func aggregate(_ analysis: Analysis, outcomes: [InputOutcome], analysisTime: Duration) async throws {
        let (manifest, options, settings) = (analysis.manifest, analysis.options, analysis.settings)
        let (folder, plan) = (analysis.folder, analysis.plan)
        let interruption = analysis.runner.interruption
        let recordings = manifest.recordings
        let clock = ContinuousClock()
        let analyses = await BlockingWork.run {
            StudyAnalyses.update(
                folder: folder, recordings: recordings, outcomes: outcomes, settings: options.settings(run: .standard))
        }
        if interruption.requested { throw interruption.exitCode }
        if outcomes.contains(where: { $0.status == .modelProblem }) { throw ExitStatus.modelProblem }
        let aggregationStart = clock.now
        let failures = Dictionary(
            zip(recordings, outcomes).compactMap { name, outcome in
                outcome.status == .failed ? (name, outcome.error ?? "it could not be analysed") : nil
            }, uniquingKeysWith: { first, _ in first })
        let participants = await read(manifest, plan: plan, options: options, settings: settings, failures: failures)
        // The statistics (permutations) and the files: off the pool.
        try await BlockingWork.run {
            try self.write(
                participants, analysis: analysis, analyses: analyses, failures: failures,
                analysisTime: analysisTime, aggregationStart: aggregationStart)
        }
    }

    /// The study of `participants` computed and written, and said.
    private func write(
        _ participants: [ParticipantSeries], analysis: Analysis, analyses: [String: [String: String]],
        failures: [String: String], analysisTime: Duration, aggregationStart: ContinuousClock.Instant
    ) throws {
        let (manifest, segments, options, settings) = (
            analysis.manifest, analysis.segments, analysis.options, analysis.settings
        )
        let (norm, output) = (analysis.norm, analysis.output)
        let clock = ContinuousClock()
        var study = Study(participants: participants, settings: settings, segments: segments)
        if let note = segmentNote(manifest) { study.notes.append(note) }
        if let norm { CollectedReport.compare(&study, answers: [:], norm: norm) }
        let aggregationTime = clock.now - aggregationStart
        let document = StudyDocument(
            study: study, manifest: manifest, generator: MienVersion.string, options: options, analyses: analyses,
            timing: .init(
                analysisSeconds: ProgressBoard.seconds(analysisTime),
                aggregationSeconds: ProgressBoard.seconds(aggregationTime)))
        do {
            try document.write(to: output, segments: !segments.isEmpty)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        let included = participants.filter(\.included).count
        // Always said (not a log line): where the study is and how many rows it holds.
        Console.error(
            "mien study: \(study.stimuli.count) stimul\(study.stimuli.count == 1 ? "us" : "i"), \(included) of \(participants.count + manifest.problems.count) rows included; analysis \(Self.format(analysisTime)), aggregation \(Self.format(aggregationTime)); \(output)\n"
        )
        if !failures.isEmpty || !manifest.problems.isEmpty { throw ExitStatus.inputFailed }
    }

    /// Every row's series, read from its recording's files (recordings read in parallel, `--jobs`).
    private func read(
        _ manifest: StudyManifest, plan: OutputPlan, options: DetectorOptions, settings: StudySettings,
        failures: [String: String]
    ) async -> [ParticipantSeries] {
        let recordings = manifest.recordings
        let episodes = options.episodes
        let batches = await InputQueue(names: recordings, jobs: jobs).mapBlocking { recording -> [ParticipantSeries] in
            let rows = manifest.rows.filter { $0.recording == recording }
            if let failure = failures[recording] {
                return rows.map {
                    ParticipantSeries(row: $0, exclusion: "the recording could not be analysed: \(failure)")
                }
            }
            let files = plan.files(for: recording)
            guard let jsonl = files.jsonl else { return [] }
            let reader = StudyRecordingReader(
                jsonl: jsonl, events: files.events, settings: settings, watched: { episodes.watches($0) })
            do {
                return try reader.read(rows)
            } catch {
                Diagnostics.report(error)
                return rows.map { ParticipantSeries(row: $0, exclusion: "its results could not be read: \(error)") }
            }
        }
        var byLine: [Int: ParticipantSeries] = [:]
        for series in batches.flatMap({ $0 ?? [] }) { byLine[series.row.line] = series }
        return manifest.rows.compactMap { byLine[$0.line] }
    }
}
