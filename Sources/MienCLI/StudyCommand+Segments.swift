import ArgumentParser
import Foundation
import Mien
import MienStudies

/// `mien study --segment-by NAME`: the panel split by what its panel said of each participant (issue 80 item 5).
extension StudyCommand {
    /// `manifest` with each row's group its `attribute.NAME` value (none: the whole panel only); as it is without
    /// `--segment-by`.
    /// - Throws: `ValidationError` when no row carries the attribute (naming those the manifest has).
    func segmented(_ manifest: StudyManifest) throws -> StudyManifest {
        guard let name = segmentBy else { return manifest }
        let known = Set(manifest.rows.flatMap { ($0.attributes ?? [:]).keys })
        guard known.contains(name) else {
            throw ValidationError(
                "--segment-by \(name): no row of the manifest has attribute.\(name) (\(known.isEmpty ? "it has no attribute column" : "it has " + known.sorted().joined(separator: ", ")))"
            )
        }
        var rows = manifest.rows
        for index in rows.indices {
            let value = rows[index].attributes?[name]
            // The whole panel's name cannot be a group's.
            rows[index].group = value == StudyManifest.wholePanel ? "\(name) \(value ?? "")" : value
        }
        return StudyManifest(path: manifest.path, rows: rows, problems: manifest.problems)
    }

    /// study.json's note on the groups `--segment-by` made; nil without it.
    func segmentNote(_ manifest: StudyManifest) -> String? {
        guard let name = segmentBy else { return nil }
        let without = Set(manifest.rows.filter { $0.group == nil }.map(\.participant)).count
        return
            "Groups are the participants' \(name) as the panel's link gave it (--segment-by \(name)), in place of the study's own groups"
            + (without > 0
                ? "; \(without) participant\(without == 1 ? "" : "s") without it count in the whole panel only" : "")
            + "."
    }
}
