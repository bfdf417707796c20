package import Foundation
import Mien

/// A collected study's report: what `mien study` writes for a study folder or a database (`--store`) and what the
/// dashboard serves, made by this one pipeline from the participants' series.
///
/// Callers read the series (from files or a database, sync or async) and settle the settings (from flags, or from
/// the study's own `settings.json`); everything from the series on (the viewing note, the answers and how the faces
/// relate to them, the norm, the weights, the KPIs and the comparisons) happens here, in one order, so that the
/// same data and settings give the same files whichever surface asked (issue 97).
package struct CollectedReport: Sendable {
    /// The aggregated study: curves, moments, KPIs, comparisons, notes.
    package var study: Study
    /// The sessions the answers were read from (none when the study asks no questions).
    package var sessions: [ParticipantSession]
    /// The study's questions, if it asks any.
    package var questions: StudyQuestions?
    /// How the faces relate to the scale answers (relations.csv), empty without scale questions.
    package var relations: [AnswerRelations.Row] = []
    /// The answers predicted from the faces (prediction.csv), empty without scale questions.
    package var prediction: [AnswerPrediction.Row] = []

    /// What a report is made from, besides the series.
    package struct Inputs: Sendable {
        /// The study settings, marks, group labels and title already resolved.
        package var settings: StudySettings
        package var segments: [StudySegment] = []
        /// The viewing and quality rules the series were judged by (said in the notes).
        package var rules: ViewingRules
        /// Notes that precede the rest (a segmentation's).
        package var leadingNotes: [String] = []
        /// Each stimulus's pictures for the charts' time axis, and a note for each stimulus whose pictures could
        /// not be made.
        package var pictures: [String: [StimulusStrip.Picture]] = [:]
        package var pictureNotes: [String] = []
        /// Every participant's session (read for the answers only when the study asks questions).
        package var sessions: @Sendable () -> [ParticipantSession]
        package var questions: StudyQuestions?
        package var norm: NormComparison.Norm?
        /// Weights to a population's margins (`--weight`), nil for none.
        package var weighting: StudyWeighting?
        /// The study folder the recordings were read from: the report names them as the folder does, relative to
        /// it, never by a path of the machine's (nil: as the manifest resolved them).
        package var folder: URL?

        package init(
            settings: StudySettings, rules: ViewingRules, questions: StudyQuestions?,
            sessions: @escaping @Sendable () -> [ParticipantSession]
        ) {
            (self.settings, self.rules, self.questions, self.sessions) = (settings, rules, questions, sessions)
        }
    }

    /// The settings a collected study's report uses without flags: the standard ones, titled with its name, with the
    /// marks and group labels its `settings.json` keeps (what `mien study FOLDER` and the dashboard use alike).
    /// - Throws: `MienError` for a kept mark outside its stimulus.
    package static func settings(of collection: CollectionSettings, name: String) throws -> StudySettings {
        var settings = StudySettings.standard
        settings.title = name
        settings.marks = try StudyMark.checked(
            collection.marks ?? [],
            durations: Dictionary(collection.stimuli.map { ($0.name, $0.duration) }, uniquingKeysWith: { max($0, $1) }))
        settings.groupLabels = collection.groupLabels ?? [:]
        return settings
    }

    /// The report of `participants` (every manifest row's series, included or not).
    /// - Throws: `MienError` when the weights cannot be reached (a margin no participant is in).
    package static func make(_ participants: [ParticipantSeries], _ inputs: Inputs) throws -> CollectedReport {
        let settings = inputs.settings
        let participants = inputs.folder.map { folder in participants.map { relative($0, to: folder) } } ?? participants
        var study = Study(participants: participants, settings: settings, segments: inputs.segments)
        study.notes.append(viewingNote(participants, rules: inputs.rules))
        study.notes.append(contentsOf: inputs.leadingNotes)
        study.stimulusPictures = inputs.pictures
        study.notes.append(contentsOf: inputs.pictureNotes)
        // The answers to the study's questions, as every participant's session holds them, and how the faces
        // relate to the scale answers (study.html's summary says it too).
        let questions = inputs.questions
        let answered = questions == nil ? [] : inputs.sessions()
        var report = CollectedReport(study: study, sessions: answered, questions: questions)
        if let questions, questions.questions.contains(where: { $0.kind == .scale }) {
            report.study.notes.append(AnswerRelations.note(alpha: settings.alpha))
            report.study.notes.append(AnswerPrediction.note(alpha: settings.alpha))
            report.relations = AnswerRelations.rows(report.study, sessions: answered, questions: questions)
            report.prediction = AnswerPrediction.rows(report.study, sessions: answered, questions: questions)
            report.study.answerSummary = AnswerSummary.lines(
                report.study, sessions: answered, questions: questions, relations: report.relations,
                prediction: report.prediction)
        }
        if let norm = inputs.norm {
            let only = report.study.stimuli.count == 1
            let answers = Dictionary(
                uniqueKeysWithValues: report.study.stimuli.map {
                    ($0, NormFigures.answers(answered, questions: questions, stimulus: $0, onlyStimulus: only))
                })
            compare(&report.study, answers: answers, norm: norm)
        }
        // Weights to a population's margins: the KPIs again weighted; the rest stays unweighted.
        if let weighting = inputs.weighting {
            report.study.weighting = try weighting.weights(for: report.study)
            report.study.notes.append(
                (report.study.weighting?.words ?? "")
                    + " Weighted: the KPIs (kpis.csv's weighted rows) and the verdict. Unweighted: the curves, moments, ISC, relations, the prediction, the norms' places and the comparisons."
            )
        }
        // Each stimulus's key figures, with or without questions (viewers, and watched where the gaze was measured).
        report.study.kpis = StudyKPIs.rows(
            report.study, sessions: answered, questions: questions, weights: report.study.weighting)
        report.study.comparisons = StudyComparisons.rows(
            report.study, sessions: answered, questions: questions, alpha: settings.alpha)
        if !report.study.comparisons.isEmpty { report.study.notes.append(StudyComparisons.note(alpha: settings.alpha)) }
        return report
    }

    /// Each stimulus's pictures for the charts' time axis, read from the study folder's copy, and a note for each
    /// stimulus whose pictures could not be made (`Inputs.pictures`, `Inputs.pictureNotes`).
    package static func pictures(of stimuli: [CollectionSettings.Stimulus], in folder: CollectionFolder) async -> (
        [String: [StimulusStrip.Picture]], [String]
    ) {
        var pictures: [String: [StimulusStrip.Picture]] = [:]
        var notes: [String] = []
        for stimulus in stimuli {
            do {
                let path = folder.stimuli.appendingPathComponent(stimulus.file).path
                pictures[stimulus.name] = try await StimulusStrip.pictures(path: path, duration: stimulus.duration)
            } catch {
                notes.append(
                    "No pictures of \(stimulus.name) on the page: \((error as? MienError)?.message ?? "\(error)").")
            }
        }
        return (pictures, notes)
    }

    /// `manifest` with its problems naming recordings relative to `folder` (participants.csv and study.json list
    /// them), as the report names its rows.
    package static func relative(_ manifest: StudyManifest, to folder: URL) -> StudyManifest {
        let prefix = folder.path + "/"
        var manifest = manifest
        manifest.problems = manifest.problems.map { problem in
            var problem = problem
            problem.recording = problem.recording.map { relative($0, prefix: prefix) }
            problem.message = problem.message.replacingOccurrences(of: prefix, with: "")
            return problem
        }
        return manifest
    }

    private static func relative(_ series: ParticipantSeries, to folder: URL) -> ParticipantSeries {
        let prefix = folder.path + "/"
        var series = series
        series.row.recording = relative(series.row.recording, prefix: prefix)
        series.exclusion = series.exclusion?.replacingOccurrences(of: prefix, with: "")
        series.notes = series.notes.map { $0.replacingOccurrences(of: prefix, with: "") }
        return series
    }

    /// A recording's path within the folder, or its file name when it is elsewhere.
    private static func relative(_ path: String, prefix: String) -> String {
        path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : URL(fileURLWithPath: path).lastPathComponent
    }

    /// Places `study`'s stimuli against `norm`: norms.csv's rows, the summary's lines and the method in the notes.
    package static func compare(
        _ study: inout Study, answers: [String: [String: [String: Double]]], norm: NormComparison.Norm
    ) {
        study.normComparison = NormComparison.rows(study, answers: answers, norm: norm)
        study.normSummary = NormComparison.lines(study.normComparison, norm: norm)
        study.notes.append(NormComparison.note(norm, study: study))
    }

    /// "Viewing and data quality": how many rows' pages recorded the viewing, the rules, and how many each left out.
    package static func viewingNote(_ participants: [ParticipantSeries], rules: ViewingRules) -> String {
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
