import Foundation
import Mien

/// Where a new participant goes: the group with the fewest who count, among the groups whose target is not
/// reached when the targets close groups (`Fieldwork.targetsClose`).
extension CollectedStudy {
    /// What the targets say of a new consent.
    enum Placement: Sendable, Equatable {
        /// Into this group (nil: a study without groups).
        case group(String?)
        /// The group the link gave has reached its target.
        case groupFull(String)
        /// The whole study's target is reached, or every group's.
        case studyFull
    }

    /// Places a new participant.
    ///
    /// Who counts toward a target is who counts for balance (`SessionTable.balanceCounts`): complete; watching
    /// and not abandoned (a sign within `abandonMinutes`, or a socket open); getting ready since a consent that
    /// has not expired. Counting those still taking part, not only those complete, keeps a burst from
    /// overshooting a target that is paid for; someone who leaves or is screened out frees their place again.
    /// - Parameters:
    ///   - linked: the group the link gave (signed, or taken as given), if any.
    ///   - open: the participants with a socket open here or on another server of the study.
    func place(_ ledger: inout StudyLedger, linked: String?, open: Set<String>, now: Date) -> Placement {
        let fieldwork = settings.fieldwork
        let closes = fieldwork.targetsClose == true && !fieldwork.targets.isEmpty
        guard closes || (linked == nil && !settings.groups.isEmpty) else { return .group(linked) }
        let time = now.timeIntervalSinceReferenceDate
        let counts = ledger.sessions.balanceCounts(
            readySince: time - fieldwork.consentExpiryMinutes * 60,
            watchingSince: time - fieldwork.abandonMinutes * 60, open: open)
        func isOpen(_ group: String) -> Bool {
            guard closes, let target = fieldwork.targets[group] else { return true }
            return counts[group, default: 0] < target
        }
        if closes, let whole = fieldwork.targets[StudyManifest.wholePanel], counts.values.reduce(0, +) >= whole {
            return .studyFull
        }
        if let linked { return isOpen(linked) ? .group(linked) : .groupFull(linked) }
        guard !settings.groups.isEmpty else { return .group(nil) }
        // The first listed on a tie.
        let chosen = settings.groups.filter(isOpen).min { counts[$0, default: 0] < counts[$1, default: 0] }
        return chosen.map { .group($0) } ?? .studyFull
    }
}
