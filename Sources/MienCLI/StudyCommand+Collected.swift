import Foundation
import Mien

extension StudyCommand {
    /// A collected study: its rows' result files were written as the frames came, so it is only aggregated.
    func aggregate(
        collected: CollectionFolder, manifest: StudyManifest, segments: [StudySegment], settings: StudySettings,
        output: String
    ) throws {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            Diagnostics.report(MienError(.ioFailure, "cannot create the study's folder", input: output))
            throw ExitStatus.inputFailed
        }
        let collection = try CollectionSettings.read(folder: collected.url)
        let analysis = try CollectionAnalysis.options(collection.stored)
        let watched: @Sendable (String) -> Bool = { analysis.episodes.watches($0) }
        var settings = settings
        settings.title = settings.title ?? collected.url.lastPathComponent
        let participants = CollectionFolder.series(
            of: manifest, settings: settings, watched: watched,
            minimumShare: minMeasured ?? collection.fieldwork.minimumShare)
        let study = Study(participants: participants, settings: settings, segments: segments)
        let document = StudyDocument(
            study: study, manifest: manifest, generator: MienVersion.string, options: analysis,
            analyses: Dictionary(uniqueKeysWithValues: manifest.recordings.map { ($0, analysis.settings) }),
            timing: .init(analysisSeconds: 0, aggregationSeconds: ProgressBoard.seconds(clock.now - start)))
        do {
            try document.write(to: output, segments: !segments.isEmpty)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        Console.error(
            "mien study: collected study \(collected.url.path): \(study.stimuli.count) stimul\(study.stimuli.count == 1 ? "us" : "i"), \(participants.filter(\.included).count) of \(participants.count + manifest.problems.count) rows included (measured as they came, nothing analysed again); \(output)\n"
        )
        if !manifest.problems.isEmpty { throw ExitStatus.inputFailed }
    }
}
