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
        sessions: () -> [ParticipantSession]
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
        var study = Study(participants: participants, settings: settings, segments: segments)
        study.notes.append(Self.viewingNote(participants, rules: rules))
        if let note = segmentNote(manifest) { study.notes.append(note) }
        // What was on screen along the charts' time axis, from the stimuli the folder keeps (a database's are not read).
        for stimulus in collection.stimuli {
            guard let folder else { break }
            do {
                let path = folder.stimuli.appendingPathComponent(stimulus.file).path
                study.stimulusPictures[stimulus.name] = try Blocking.run {
                    try await StimulusStrip.pictures(path: path, duration: stimulus.duration)
                }
            } catch {
                study.notes.append(
                    "No pictures of \(stimulus.name) on the page: \((error as? MienError)?.message ?? "\(error)").")
            }
        }
        // The answers to the study's questions, as every participant's session holds them, and how the faces
        // relate to the scale answers (study.html's summary says it too).
        let questions = collection.questions
        let answered = questions == nil ? [] : sessions()
        let scales = questions?.questions.contains { $0.kind == .scale } == true
        var relations: [AnswerRelations.Row] = []
        var prediction: [AnswerPrediction.Row] = []
        if let questions, scales {
            study.notes.append(AnswerRelations.note(alpha: settings.alpha))
            study.notes.append(AnswerPrediction.note(alpha: settings.alpha))
            relations = AnswerRelations.rows(study, sessions: answered, questions: questions)
            prediction = AnswerPrediction.rows(study, sessions: answered, questions: questions)
            study.answerSummary = AnswerSummary.lines(
                study, sessions: answered, questions: questions, relations: relations, prediction: prediction)
        }
        if let norm {
            let only = study.stimuli.count == 1
            let answers = Dictionary(
                uniqueKeysWithValues: study.stimuli.map {
                    ($0, NormFigures.answers(answered, questions: questions, stimulus: $0, onlyStimulus: only))
                })
            Self.compare(&study, answers: answers, norm: norm)
        }
        // Weights to a population's margins (--weight): the KPIs again weighted; the rest stays unweighted.
        if !weight.isEmpty {
            do {
                study.weighting = try StudyWeighting(arguments: weight, cap: weightCap).weights(for: study)
            } catch let error as MienError {
                throw ValidationError(error.description)
            }
            study.notes.append(
                (study.weighting?.words ?? "")
                    + " Weighted: the KPIs (kpis.csv's weighted rows) and the verdict. Unweighted: the curves, moments, ISC, relations, the prediction, the norms' places and the comparisons."
            )
        }
        // Each stimulus's key figures, with or without questions (viewers, and watched where the gaze was measured).
        study.kpis = StudyKPIs.rows(study, sessions: answered, questions: questions, weights: study.weighting)
        study.comparisons = StudyComparisons.rows(
            study, sessions: answered, questions: questions, alpha: settings.alpha)
        if !study.comparisons.isEmpty { study.notes.append(StudyComparisons.note(alpha: settings.alpha)) }
        let document = StudyDocument(
            study: study, manifest: manifest, generator: MienVersion.string, options: analysis,
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

    /// "Viewing and data quality": how many rows' pages recorded the viewing, the rules, and how many each left out.
    static func viewingNote(_ participants: [ParticipantSeries], rules: ViewingRules) -> String {
        let recorded = participants.filter { $0.row.viewing != nil }.count
        var byRule: [String: Int] = [:]
        for series in participants {
            for part in (series.exclusion ?? "").components(separatedBy: "; ") where part.hasPrefix("viewing rule ") {
                let name = part.dropFirst("viewing rule ".count).prefix { $0 != ":" }
                byRule[String(name), default: 0] += 1
            }
        }
        let left = participants.filter { ($0.exclusion ?? "").hasPrefix("viewing rule ") }.count
        let counts = byRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return
            "Viewing and data quality: the page recorded the viewing for \(recorded) of \(participants.count) rows (the rest say \"viewing not recorded\"); rules (--quality): \(rules); \(left) row\(left == 1 ? "" : "s") left out by them\(counts.isEmpty ? "" : " (\(counts))"). Frames sent while the page was hidden were not counted."
    }
}
