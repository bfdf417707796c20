import Foundation
import Mien
import MienStudies

/// What `mien study` writes into its folder: the tables, `study.json` (everything, with the settings, the
/// versions and the models' checksums) and `study.html`.
struct StudyDocument: Encodable {
    struct Timing: Encodable {
        /// Seconds spent analysing recordings (0 when every one was reused).
        var analysisSeconds: Double
        /// Seconds spent reading the recordings' results back and aggregating them.
        var aggregationSeconds: Double
    }

    var study: Study
    var manifest: StudyManifest
    var generator: String
    var options: DetectorOptions
    /// The settings each recording's files were made with (`StudyAnalyses`).
    var analyses: [String: [String: String]]
    var timing: Timing

    private enum CodingKeys: String, CodingKey {
        case generator, manifest, settings, analysis, models, timing, problems, participants, curves, attention,
            retention, retentionTests, moments
        case correlations, segments, notes, requestedAnalysis, analysisPerRecording, answerSummary, norms, kpis,
            comparisons, weighting
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(generator, forKey: .generator)
        try container.encode(manifest.path, forKey: .manifest)
        try container.encode(study.settings, forKey: .settings)
        // Every setting the recordings' results depend on, as the shard manifests record them: those the files
        // were made with (one set when they agree), and what this run asked for.
        let made = Set(analyses.values)
        try container.encode(made.count == 1 ? made.first : nil, forKey: .analysis)
        try container.encode(analyses, forKey: .analysisPerRecording)
        try container.encode(options.settings(run: .standard), forKey: .requestedAnalysis)
        try container.encode(
            Dictionary(uniqueKeysWithValues: ModelDescriptor.all.map { ($0.fileName, $0.sha256) }), forKey: .models)
        try container.encode(timing, forKey: .timing)
        try container.encode(manifest.problems, forKey: .problems)
        try container.encode(study.participants, forKey: .participants)
        try container.encode(study.curves, forKey: .curves)
        try container.encode(study.attention, forKey: .attention)
        try container.encode(study.retention, forKey: .retention)
        try container.encode(study.retentionTests, forKey: .retentionTests)
        try container.encode(study.moments, forKey: .moments)
        try container.encode(study.correlations, forKey: .correlations)
        try container.encode(study.segments, forKey: .segments)
        try container.encode(study.notes, forKey: .notes)
        // study.html's summary of each stimulus's answers, as it says them (a collected study with scale questions).
        if !study.answerSummary.isEmpty { try container.encode(study.answerSummary, forKey: .answerSummary) }
        // Each stimulus against the norm (--norms): norms.csv's rows.
        if !study.normComparison.isEmpty { try container.encode(study.normComparison, forKey: .norms) }
        // Each stimulus's key figures (a collected study): kpis.csv's rows.
        if !study.kpis.isEmpty { try container.encode(study.kpis, forKey: .kpis) }
        // Adverts and groups compared (a collected study): comparisons.csv's rows.
        if !study.comparisons.isEmpty { try container.encode(study.comparisons, forKey: .comparisons) }
        // The weights to a population's margins (--weight).
        if let weighting = study.weighting { try container.encode(weighting, forKey: .weighting) }
    }

    /// Writes every file into `folder`, each under a temporary name until complete.
    /// - Throws: `.ioFailure` naming the file that cannot be written.
    func write(to folder: String, segments: Bool) throws {
        var files: [(String, String)] = [
            ("curves.csv", StudyTables.curves(study)), ("attention.csv", StudyTables.attention(study)),
            ("retention.csv", StudyTables.retention(study)),
            ("participants.csv", StudyTables.participants(study, problems: manifest.problems)),
            ("moments.csv", StudyTables.moments(study)), ("isc.csv", StudyTables.correlations(study)),
            ("features.csv", StudyFeatures.csv(study)),
        ]
        if segments { files.append(("segments.csv", StudyTables.segments(study))) }
        if !study.settings.marks.isEmpty { files.append(("marks.csv", StudyMark.csv(study.settings.marks))) }
        if !study.normComparison.isEmpty { files.append(("norms.csv", NormComparison.csv(study.normComparison))) }
        if !study.kpis.isEmpty { files.append(("kpis.csv", StudyKPIs.csv(study.kpis))) }
        if !study.comparisons.isEmpty {
            files.append(("comparisons.csv", StudyComparisons.csv(study.comparisons)))
        }
        if let weighting = study.weighting { files.append(("weights.csv", weighting.csv)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        files.append(("study.json", String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"))
        files.append(("study.html", try StudyPage.render(study, generator: generator)))
        for (name, text) in files {
            let file = try AtomicFile(path: URL(fileURLWithPath: folder).appendingPathComponent(name).path)
            try file.write(text)
            try file.commit()
        }
    }
}
