import Foundation
import Logging
import Mien

/// What each recording of a study was analysed with: `DIR/recordings/analyses.json`, recording path to the
/// analysis settings (`DetectorOptions.settings`) its files were made with.
///
/// `mien study` reuses a recording analysed by an earlier run as it is, so a run with other analysis flags would
/// otherwise report settings its files were not made with: the record says what they were made with, and a
/// difference is warned about.
enum StudyAnalyses {
    static let fileName = "analyses.json"

    /// Records the recordings analysed in this run, warns for every reused one made with other settings, and
    /// returns the settings every recording's files were made with.
    static func update(
        folder: String, recordings: [String], outcomes: [InputOutcome], settings: [String: String]
    ) -> [String: [String: String]] {
        let path = URL(fileURLWithPath: folder).appendingPathComponent(fileName).path
        var record: [String: [String: String]] = [:]
        if FileManager.default.fileExists(atPath: path) {
            do {
                record = try JSONDecoder().decode(
                    [String: [String: String]].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                Diagnostics.logger.warning(
                    "\(path) cannot be read (\(error)); the settings of recordings analysed earlier are unknown")
            }
        }
        for (recording, outcome) in zip(recordings, outcomes) {
            switch outcome.status {
            case .done:
                record[recording] = settings
            case .alreadyDone:
                guard let earlier = record[recording] else {
                    Diagnostics.logger.warning(
                        "\(recording): reused, analysed by an earlier run whose settings were not recorded")
                    continue
                }
                let differing = settings.keys.sorted().filter { earlier[$0] != settings[$0] }
                if !differing.isEmpty {
                    let list = differing.map { "\($0) \(earlier[$0] ?? "-") (asked: \(settings[$0] ?? "-"))" }
                    Diagnostics.logger.warning(
                        "\(recording): reused, made with other analysis settings: \(list.joined(separator: "; ")); delete it from \(folder) to analyse it again with these"
                    )
                }
            default:
                continue
            }
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            let file = try AtomicFile(path: path)
            try file.write(String(decoding: try encoder.encode(record), as: UTF8.self) + "\n")
            try file.commit()
        } catch {
            Diagnostics.logger.warning(
                "\(path) cannot be written (\(error)): the next run will not know these settings")
        }
        return record.filter { recordings.contains($0.key) }
    }
}
