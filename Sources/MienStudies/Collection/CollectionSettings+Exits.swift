import Foundation
import Mien

/// The ways back to the panel: which link a participant who leaves goes to, and which participant IDs a link may
/// carry.
extension CollectionSettings {
    /// The link a participant who cannot take part (`.screenout`) or is turned away as over quota (`.overquota`)
    /// goes to, in the panel's conventions (`PanelConventions`); nil when the study has none.
    ///
    /// The over-quota link and code default to the screen-out ones, and Dynata's both to its end link
    /// (`completionURL`), which tells the outcome by `rst=`.
    /// - Parameters:
    ///   - participant: their ID, when known; `reason`: why, in the link's `reason=` for a generic panel.
    package func exitLink(_ exit: PanelConventions.Exit, participant: String?, reason: String) -> String? {
        let panel = fieldwork.panelConventions
        let screenout = fieldwork.screenoutURL ?? (panel == .dynata ? completionURL : nil)
        switch exit {
        case .complete:
            return nil
        case .screenout:
            return panel.exit(
                .screenout, screenout, participant: participant, reason: reason, code: fieldwork.screenoutCode)
        case .overquota:
            return panel.exit(
                .overquota, fieldwork.overquotaURL ?? screenout, participant: participant, reason: reason,
                code: fieldwork.overquotaCode ?? fieldwork.screenoutCode)
        }
    }

    /// Whether `id` can be a participant's ID: a name (`isName`), with `*` allowed too.
    ///
    /// Dynata's `psid` carries `*` (a base64 ID whose padding is written `*`). Still no `/`, `.` or `..`: an ID
    /// makes a folder's name.
    package static func isParticipantID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && isName(id.replacingOccurrences(of: "*", with: "_"))
    }
}
