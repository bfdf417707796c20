import Foundation
import Mien

/// A folder `mien study` wrote, read back for a norm (`mien norms add`): the study from `study.json` and the scale
/// answers from `answers.csv` (a collected study with questions).
package struct StudyResultsFolder: Sendable {
    package var study: Study
    /// The Mien that wrote it (`study.json`'s generator).
    package var generator: String
    /// The study's name: its title, else the folder's name.
    package var name: String
    /// Each stimulus's participants' scale answers concerning it, by stimulus.
    package var answers: [String: [String: [String: Double]]]

    /// Reads `folder`.
    /// - Throws: `.notFound` without `study.json`, `.corruptData` naming the file that cannot be read as one.
    package init(folder: String) throws {
        let url = URL(fileURLWithPath: folder)
        let json = url.appendingPathComponent("study.json").path
        guard let data = FileManager.default.contents(atPath: json) else {
            throw MienError(
                .notFound, "holds no study.json: give a folder mien study wrote (its --output)", input: folder)
        }
        struct Made: Decodable { var generator: String? }
        do {
            study = try JSONDecoder().decode(Study.self, from: data)
            generator = try JSONDecoder().decode(Made.self, from: data).generator ?? "unknown"
        } catch {
            throw MienError(.corruptData, "is not a study.json mien study wrote: \(error)", input: json)
        }
        name = study.settings.title ?? url.lastPathComponent
        answers = [:]
        let csv = url.appendingPathComponent("answers.csv").path
        guard FileManager.default.fileExists(atPath: csv) else { return }
        let only = study.stimuli.count == 1
        for stimulus in study.stimuli {
            answers[stimulus] = try NormFigures.answers(csv: csv, stimulus: stimulus, onlyStimulus: only)
        }
    }
}
