import ArgumentParser
import Foundation
import Mien
import MienService
import MienStudies

extension StudyCommand {
    /// A collected study: its rows' result files were written as the frames came, so it is only aggregated.
    func aggregate(
        collected: CollectionFolder, manifest: StudyManifest, segments: [StudySegment], settings: StudySettings,
        output: String, norm: NormComparison.Norm?
    ) throws {
        let collection = try CollectionSettings.read(folder: collected.url)
        try aggregate(
            collection: collection, name: collected.url.lastPathComponent, source: collected.url.path,
            manifest: manifest, segments: segments, settings: settings, output: output, norm: norm,
            content: CollectionFolder.resultFiles(ofRecording:), folder: collected,
            sessions: {
                let (sessions, problems) = collected.sessions()
                for problem in problems { Console.error("mien study: a session left out of answers.csv: \(problem)\n") }
                return sessions
            })
    }

    /// A collected study in a database (`--store`): its sessions, manifest and per-frame results read from it,
    /// recording by recording, with no file in between.
    func aggregate(
        store: String, segments: [StudySegment], settings: StudySettings, output: String, norm: NormComparison.Norm?
    ) throws {
        let study = manifest
        let archive: StudyArchive
        do {
            archive = try Blocking.run { try await StudyArchive.open(url: store, study: study) }
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        defer {
            do { try Blocking.run { await archive.close() } } catch { Diagnostics.report(error) }
        }
        let manifest: StudyManifest
        do {
            manifest = try segmented(try archive.manifest())
        } catch {
            Diagnostics.report(
                MienError(.invalidArgument, "no participant has been measured yet", input: "study \(study)"))
            throw ExitStatus.inputFailed
        }
        try aggregate(
            collection: archive.settings, name: study, source: "\(archive.source) study \(study)", manifest: manifest,
            segments: segments, settings: settings, output: output, norm: norm,
            content: { recording in try Blocking.run { try await archive.content(ofRecording: recording) } },
            sessions: { archive.sessions })
    }

    private func aggregate(
        collection: CollectionSettings, name: String, source: String, manifest: StudyManifest,
        segments: [StudySegment], settings: StudySettings, output: String, norm: NormComparison.Norm?,
        content: (String) throws -> StudyRecordingReader.Content?, folder: CollectionFolder? = nil,
        sessions: @escaping @Sendable () -> [ParticipantSession]
    ) throws {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            Diagnostics.report(MienError(.ioFailure, "cannot create the study's folder", input: output))
            throw ExitStatus.inputFailed
        }
        let analysis = try CollectionAnalysis.options(collection.stored)
        let watched: @Sendable (String) -> Bool = { analysis.episodes.watches($0) }
        var settings = settings
        settings.title = settings.title ?? name
        settings.marks = try resolvedMarks(
            durations: Dictionary(collection.stimuli.map { ($0.name, $0.duration) }, uniquingKeysWith: { max($0, $1) }),
            given: collection.marks)
        settings.groupLabels =
            segmentBy == nil
            ? try groupLabels(given: collection.groupLabels, groups: collection.groups)
            : try groupLabels(groups: Set(manifest.rows.compactMap(\.group)).sorted())
        let rules = try ViewingRules(parsing: quality)
        let participants = CollectionFolder.series(
            of: manifest, settings: settings, watched: watched,
            minimumShare: minMeasured ?? collection.fieldwork.minimumShare, viewingRules: rules, content: content)
        var inputs = CollectedReport.Inputs(
            settings: settings, rules: rules, questions: collection.questions, sessions: sessions)
        inputs.segments = segments
        inputs.leadingNotes = segmentNote(manifest).map { [$0] } ?? []
        inputs.norm = norm
        // What was on screen along the charts' time axis, from the stimuli the folder keeps (a database's are not read).
        if let folder {
            (inputs.pictures, inputs.pictureNotes) = try Blocking.run {
                await CollectedReport.pictures(of: collection.stimuli, in: folder)
            }
            // Recordings named as the study folder names them (and as the dashboard does).
            inputs.folder = folder.url
        }
        if !weight.isEmpty {
            do {
                inputs.weighting = try StudyWeighting(arguments: weight, cap: weightCap)
            } catch let error as MienError {
                throw ValidationError(error.description)
            }
        }
        let report: CollectedReport
        do {
            report = try CollectedReport.make(participants, inputs)
        } catch let error as MienError {
            throw ValidationError(error.description)
        }
        let (study, answered, questions) = (report.study, report.sessions, report.questions)
        let (relations, prediction) = (report.relations, report.prediction)
        let scales = questions?.questions.contains { $0.kind == .scale } == true
        let document = StudyDocument(
            study: study, manifest: folder.map { CollectedReport.relative(manifest, to: $0.url) } ?? manifest,
            generator: MienVersion.string, options: analysis,
            analyses: Dictionary(uniqueKeysWithValues: manifest.recordings.map { ($0, analysis.settings) }),
            timing: .init(analysisSeconds: 0, aggregationSeconds: ProgressBoard.seconds(clock.now - start)))
        do {
            try document.write(to: output, segments: !segments.isEmpty)
            if let questions {
                try AnswerTable.csv(answered, questions: questions).write(
                    toFile: (output as NSString).appendingPathComponent("answers.csv"), atomically: true,
                    encoding: .utf8)
                if scales {
                    try AnswerRelations.csv(relations).write(
                        toFile: (output as NSString).appendingPathComponent("relations.csv"), atomically: true,
                        encoding: .utf8)
                    try AnswerPrediction.csv(prediction).write(
                        toFile: (output as NSString).appendingPathComponent("prediction.csv"), atomically: true,
                        encoding: .utf8)
                }
            }
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        Console.error(
            "mien study: collected study \(source): \(study.stimuli.count) stimul\(study.stimuli.count == 1 ? "us" : "i"), \(participants.filter(\.included).count) of \(participants.count + manifest.problems.count) rows included (measured as they came, nothing analysed again); \(output)\n"
        )
        if !manifest.problems.isEmpty { throw ExitStatus.inputFailed }
    }
}
