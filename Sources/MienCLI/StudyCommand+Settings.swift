import ArgumentParser
import Foundation
import Logging
import Mien
import MienStudies

/// How `mien study`'s flags are checked before anything runs, and become the study's settings.
extension StudyCommand {
    func validate() throws {
        if output == nil && !listRecordings { throw ValidationError("--output is required (the study's folder)") }
        if jobs < 1 || jobs > 64 { throw ValidationError("--jobs must be within 1...64") }
        if store != nil && listRecordings {
            throw ValidationError("--list-recordings lists a manifest's videos; a collected study has none to analyse")
        }
        if !normFilter.isEmpty && norms == nil {
            throw ValidationError("--norm-filter filters a norm: give it with --norms")
        }
        if let minMeasured, !(0...1).contains(minMeasured) {
            throw ValidationError("--min-measured must be within 0...1")
        }
        do {
            _ = try ViewingRules(parsing: quality)
        } catch {
            throw ValidationError("\(error)")
        }
        if let output {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw ValidationError("--output \(output) is a file; give a folder")
            }
        }
        _ = try settings()
        _ = try analysis.detectorOptions()
    }

    /// The marks `--marks` gives (a file or NAME=SECONDS each), else `given` (a collected study's own), checked against
    /// the stimuli's `durations` (seconds).
    func resolvedMarks(durations: [String: Double], given: [StudyMark]? = nil) throws -> [StudyMark] {
        do {
            guard !marks.isEmpty else { return try StudyMark.checked(given ?? [], durations: durations) }
            let stimuli = durations.keys.sorted()
            let all = try marks.flatMap { value -> [StudyMark] in
                guard FileManager.default.fileExists(atPath: value) else {
                    return try StudyMark.parse(value, stimuli: stimuli)
                }
                let text: String
                do {
                    text = try String(contentsOfFile: value, encoding: .utf8)
                } catch {
                    throw MienError(.unreadable, "cannot be read as UTF-8 text", input: value)
                }
                return try StudyMark.read(csv: text, file: value)
            }
            return try StudyMark.checked(all, durations: durations)
        } catch let error as MienError {
            throw ValidationError(error.input.map { "--marks \($0): \(error.message)" } ?? error.message)
        }
    }

    /// `--group-label GROUP=TEXT` values over `given` (a collected study's own), each naming one of `groups` (nil:
    /// not yet known, checked later).
    func groupLabels(given: [String: String]? = nil, groups: [String]? = nil) throws -> [String: String] {
        try Self.groupLabels(groupLabel, given: given ?? [:], groups: groups)
    }

    /// `--group-label` `values` (GROUP=TEXT each) over `given`, each naming one of `groups` (nil: not checked):
    /// `mien study`'s and `mien study init`'s.
    static func groupLabels(_ values: [String], given: [String: String], groups: [String]?) throws -> [String: String] {
        var labels = given
        for value in values {
            guard let equals = value.firstIndex(of: "="), value[..<equals].count > 0,
                !value[value.index(after: equals)...].trimmingCharacters(in: .whitespaces).isEmpty
            else { throw ValidationError("--group-label \(value): write GROUP=TEXT (A=\"Women 18-34\")") }
            let group = String(value[..<equals]).trimmingCharacters(in: .whitespaces)
            if let groups, !groups.contains(group) {
                throw ValidationError(
                    "--group-label \(value): no group \(group) in the study (\(groups.isEmpty ? "it has none" : groups.joined(separator: ", ")))"
                )
            }
            labels[group] = value[value.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return labels
    }

    func settings() throws -> StudySettings {
        do {
            let unknown = chart.filter { name in
                MetricCatalog.entry(named: name).map { [.category, .flag].contains($0.unit) } ?? true
            }
            if !unknown.isEmpty {
                throw MienError(
                    .invalidArgument,
                    "--chart: \(unknown.joined(separator: ", ")) \(unknown.count == 1 ? "is not a metric" : "are not metrics") with a score (mien metrics lists them)"
                )
            }
            var settings = try StudySettings(
                bin: bin, minimumFaceShare: minFaceShare, minimumDifference: minDifference,
                peakProminence: peakProminence, alpha: alpha, permutations: permutations, seed: seed,
                correction: correction, baseline: baseline, iscMinimumBins: iscMinBins,
                minimumParticipants: minParticipants, charts: chart)
            settings.title = title
            settings.allFrames = allFrames
            settings.groupLabels = try groupLabels()
            guard minEffect.isFinite, minEffect >= 0 else {
                throw MienError(.invalidArgument, "--min-effect must be 0 or more points (got \(minEffect))")
            }
            settings.minimumEffect = minEffect
            guard minWatched.isFinite, (0...1).contains(minWatched) else {
                throw MienError(.invalidArgument, "--min-watched must be within 0...1 (got \(minWatched))")
            }
            settings.minimumWatched = minWatched
            settings.exposure = exposure
            guard normMinDifference.isFinite, normMinDifference >= 0 else {
                throw MienError(
                    .invalidArgument,
                    "--norm-min-difference must be 0 or more standard deviations (got \(normMinDifference))")
            }
            settings.normMinimum = normMinDifference
            return settings
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }
}
