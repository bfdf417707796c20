import ArgumentParser
import Foundation
import Mien
import MienStudies
import MienTesting

/// `MienDev null-studies`: what studies of panels in which nothing differs (`NullPanels`) report.
///
/// Counted: how many report a difference, a response or a significant ISC. Reproduces the trial of issue 57 and the test's null panels.
struct NullStudies: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "null-studies",
        abstract: "Count what studies of random panels of the same talking heads report (they should report nothing).")

    @Argument(help: "Analysed recordings' JSON Lines (mien analyze --output DIR: DIR/NAME.jsonl); events beside them.")
    var jsonl: [String]

    @Option(help: "Panels.") var panels = 20
    @Option(help: "Participants per panel.") var participants = 16
    @Option(help: "Groups per panel (assigned at random).") var groups = 2
    @Option(help: "Stimulus seconds (default: the rest of each recording).") var duration: Double?
    @Option(help: "Latest onset, seconds (default: as far as the duration fits).") var latestOnset: Double?
    @Flag(help: "Give every participant footage of their own (windows of --duration that do not overlap).")
    var disjoint = false
    @Option(help: "Bin, seconds.") var bin = 1.0
    @Option(help: "Permutations.") var permutations = 1000
    @Option(help: "Correction: cluster or fdr.") var correction = "cluster"
    @Option(help: "Seed of the panels.") var seed: UInt64 = 57

    func run() throws {
        let recordings = try jsonl.map { path in
            var last = 0.0
            try JSONLinesReader(path: path).forEachResult { last = $0.timestamp }
            let events = path.replacingOccurrences(of: ".jsonl", with: ".events.csv")
            return NullPanels.Recording(
                jsonl: path, events: FileManager.default.fileExists(atPath: events) ? events : nil,
                seconds: last)
        }
        let settings = try StudySettings(
            bin: bin, permutations: permutations,
            correction: StudySettings.Correction(rawValue: correction) ?? .cluster)
        let maker = NullPanels(
            recordings: recordings, participants: participants, groups: groups, duration: duration,
            latestOnset: latestOnset, disjoint: disjoint, settings: settings)
        var withDifference = 0
        var withResponse = 0
        var withISC = 0
        var withoutISC = 0
        var differenceCount = 0
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<panels {
            let study = try maker.study(index, seed: seed)
            let differences = study.moments.filter { $0.kind == .difference }
            let responses = study.moments.filter { $0.kind == .response && $0.group == "all" }
            let isc = study.correlations.filter { $0.group == "all" }
            let significant = isc.filter { ($0.p ?? 1) < settings.alpha }
            differenceCount += differences.count
            if !differences.isEmpty { withDifference += 1 }
            if !responses.isEmpty { withResponse += 1 }
            if !significant.isEmpty { withISC += 1 }
            if isc.allSatisfy({ $0.isc == nil }) { withoutISC += 1 }
            let mean = isc.compactMap(\.isc)
            print(
                "panel \(index + 1): \(differences.count) differences, \(responses.count) panel responses, ISC computed for \(mean.count) metrics (mean \(mean.isEmpty ? "-" : String(format: "%.2f", mean.reduce(0, +) / Double(mean.count)))), \(significant.count) with p < \(settings.alpha)"
            )
        }
        let seconds = Double((clock.now - start).components.seconds)
        print(
            "null studies: \(panels) panels of \(participants) in \(groups) groups; with a difference \(withDifference) (\(differenceCount) in all), with a panel response \(withResponse), with an ISC p < \(settings.alpha) \(withISC), with no ISC computed \(withoutISC); \(Int(seconds)) s"
        )
        print(
            "{\"panels\":\(panels),\"groups\":\(groups),\"withDifference\":\(withDifference),\"withResponse\":\(withResponse),\"withISC\":\(withISC),\"withoutISC\":\(withoutISC)}"
        )
    }
}
