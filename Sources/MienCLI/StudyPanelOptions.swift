import ArgumentParser
import Foundation
import Mien
import MienStudies

/// `mien study init`'s panel options: how participants arrive and go back (`PanelConventions`), and the targets.
struct StudyPanelOptions: ParsableArguments {
    @Option(
        help:
            "The panel provider's conventions: generic (participant= in; participant= and code= appended to the links back), prolific (PROLIFIC_PID= in; its completion URL as given, with cc=; the screen-out link cc=--screenout-code), cint (RID= in; Cint's exit links with RID=) or dynata (psid= in; Dynata's end link with rst= and psid=). docs/studies.md, \"Fieldwork: nobody lost, nobody fooled\"."
    )
    var panel: PanelConventions = .generic

    @Option(
        help:
            "Where participants who cannot take part go back to the panel (declined, no camera, no face, measured too little); generic panels get participant= and reason= appended."
    )
    var screenoutUrl: String?

    @Option(
        help:
            "The panel's code for participants it screened out (appended to --screenout-url as code=, cc= for Prolific)."
    )
    var screenoutCode: String?

    @Option(
        help:
            "Where participants turned away because the study or their group is full go back to the panel (default: --screenout-url, with reason=full or reason=groupFull)."
    )
    var overquotaUrl: String?

    @Option(help: "The panel's code for participants turned away as over quota (default: --screenout-code).")
    var overquotaCode: String?

    @Option(
        parsing: .upToNextOption,
        help:
            "Completed participants wanted: N for the whole study, or GROUP=N per group (see --targets).")
    var target: [String] = []

    @Option(
        help:
            "What the targets do: close (a group, or the study, takes no new consent once those complete and those still taking part reach its target; turned away to --overquota-url) or display (shown on the dashboard only)."
    )
    var targets: TargetMode = .close

    @Option(
        help:
            "Who counts toward the targets: usable (complete, and their viewing meets mien study's default viewing rules; a viewer below them is still approved and paid, the quota goes on filling) or everyone who completed."
    )
    var targetsCount: TargetCount = .usable

    @Flag(help: "Refuse consent without the participant ID a panel's link carries (always for cint and dynata).")
    var requireId = false

    enum TargetMode: String, ExpressibleByArgument, CaseIterable {
        case close, display
    }

    enum TargetCount: String, ExpressibleByArgument, CaseIterable {
        case usable, everyone
    }

    /// Sets the panel's part of `fieldwork`.
    /// - Throws: `ValidationError` for a target that is not `N` or `GROUP=N`.
    func apply(to fieldwork: inout CollectionSettings.Fieldwork) throws {
        fieldwork.screenoutURL = screenoutUrl
        fieldwork.screenoutCode = screenoutCode
        fieldwork.overquotaURL = overquotaUrl
        fieldwork.overquotaCode = overquotaCode
        fieldwork.panel = panel == .generic ? nil : panel
        fieldwork.targets = try parsedTargets()
        if !fieldwork.targets.isEmpty { fieldwork.targetsClose = targets == .close }
        fieldwork.targetsCountEveryone = targetsCount == .everyone ? true : nil
        // Cint and Dynata credit a participant by the ID their link carried: a made-up one could not be paid.
        fieldwork.requireParticipantID = requireId || [.cint, .dynata].contains(panel)
    }

    /// The targets: `N` for the whole study, `GROUP=N` per group.
    func parsedTargets() throws -> [String: Int] {
        var targets: [String: Int] = [:]
        for item in target.flatMap({ $0.split(separator: ",") }) {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let (group, count) = parts.count == 2 ? (parts[0], parts[1]) : (StudyManifest.wholePanel, parts[0])
            guard let number = Int(decimal: count) else {
                throw ValidationError("--target \(item): give N or GROUP=N (a whole number of participants)")
            }
            targets[group] = number
        }
        return targets
    }
}
