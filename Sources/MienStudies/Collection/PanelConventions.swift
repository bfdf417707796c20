import Foundation
import Mien

/// How a panel provider sends its participants and takes them back (`mien study init --panel`): which query
/// parameter of the study link carries the participant's ID, and how the completion, screen-out and over-quota
/// links carry the ID and the code.
///
/// - `generic` (the default): the ID arrives as `participant=`; the completion link gets `participant=` and
///   `code=` (the participant's own completion code, the one `approvals.csv` lists), the screen-out and
///   over-quota links `participant=`, `reason=` and `code=` (`--screenout-code`, `--overquota-code`); the page
///   shows the participant's own code.
/// - `prolific`: the ID arrives as `PROLIFIC_PID=`. Prolific reads the code from `cc=` and knows the participant
///   from the submission, so the completion link is Prolific's completion URL exactly as given (it must carry
///   `cc=`), and the page shows that `cc` as the code to paste should the redirect fail; the screen-out and
///   over-quota links are their URLs (by default Prolific's completion address) with `cc=` set to their code
///   (codes made for such participants in the Prolific study) and nothing else.
/// - `cint`: the ID arrives as `RID=` (Cint's `[%RID%]`, also read as `rid=`); Cint gives one exit link per
///   outcome (complete, terminate, over-quota), and each gets `RID=` with the participant's ID: Cint credits by the
///   RID, not by a code. `--completion-url` and `--screenout-url` are required, `--overquota-url` defaults to the
///   screen-out link.
/// - `dynata`: the ID arrives as `psid=`; Dynata's end link (`https://api.dynata.com/respondent/exit`) gets
///   `rst=` (1 complete, 2 screen-out, 3 over-quota, replacing whatever the link had) and `psid=`. The screen-out
///   and over-quota links default to the completion link. Dynata's `med` security value (computed from a key
///   Dynata gives at onboarding) is not made by Mien: ask Dynata for end links without it, or add it through
///   their server-to-server callback.
package enum PanelConventions: String, Sendable, Codable, CaseIterable {
    case generic, prolific, cint, dynata

    /// How a participant leaves for the panel.
    package enum Exit: String, Sendable, CaseIterable {
        /// Completed the study.
        case complete
        /// Cannot take part (declined, no camera, no face, measured too little).
        case screenout
        /// Turned away because the study or their group has every participant it needs.
        case overquota
    }

    /// Prolific's completion address, where its `cc=` codes are read.
    package static let prolificCompletion = "https://app.prolific.com/submissions/complete"

    /// The query parameter of the study link that carries the participant's ID.
    package var idParameter: String {
        switch self {
        case .generic: "participant"
        case .prolific: "PROLIFIC_PID"
        case .cint: "RID"
        case .dynata: "psid"
        }
    }

    /// The study link's ID parameter as the panel's own link template writes it (what `mien study init` prints).
    package var linkTemplate: String {
        switch self {
        case .generic: "participant=ID"
        case .prolific: "PROLIFIC_PID={{%PROLIFIC_PID%}}"
        case .cint: "RID=[%RID%]"
        case .dynata: "psid=<#IdParameter[Value]>"
        }
    }

    /// The query parameter that carries a code back to the panel (nil: the panel takes no code back).
    package var codeParameter: String? {
        switch self {
        case .generic: "code"
        case .prolific: "cc"
        case .cint, .dynata: nil
        }
    }

    /// Refuses settings this panel cannot take participants back with.
    func validate(completionURL: String?, screenoutURL: String?, screenoutCode: String?) throws {
        func refuse(_ message: String) -> MienError { MienError(.invalidOptions, message) }
        switch self {
        case .generic:
            return
        case .prolific:
            guard let completionURL, Self.code(in: completionURL) != nil else {
                throw refuse(
                    "--panel prolific needs Prolific's completion URL with its code (--completion-url \(Self.prolificCompletion)?cc=CODE)"
                )
            }
            if screenoutCode == nil {
                throw refuse(
                    "--panel prolific needs --screenout-code: a completion code you made in the Prolific study for participants screened out (no camera, no face, declined)"
                )
            }
        case .cint:
            guard completionURL != nil, screenoutURL != nil else {
                throw refuse(
                    "--panel cint needs the exit links Cint gave for the study: --completion-url (complete) and --screenout-url (terminate); --overquota-url for over-quota (else the terminate link)"
                )
            }
        case .dynata:
            guard completionURL != nil else {
                throw refuse(
                    "--panel dynata needs Dynata's end link (--completion-url https://api.dynata.com/respondent/exit): rst= and psid= are set for each outcome"
                )
            }
        }
    }

    /// The `cc` (Prolific's code) a URL carries, if any.
    package static func code(in url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == "cc" }?.value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where a completer goes, and the code they are shown.
    /// - Parameters:
    ///   - completionURL: the study's completion link.
    ///   - participant: the participant's ID; `code`: their own completion code.
    package func completion(_ completionURL: String?, participant: String, code: String) -> (
        redirect: String?, shown: String
    ) {
        switch self {
        case .generic:
            return (CollectionSettings.redirect(completionURL, [("participant", participant), ("code", code)]), code)
        case .prolific:
            return (completionURL, completionURL.flatMap(Self.code(in:)) ?? code)
        case .cint, .dynata:
            return (link(.complete, completionURL, participant: participant), code)
        }
    }

    /// Where someone who cannot take part (`.screenout`) or was turned away as over quota (`.overquota`) is
    /// sent, if anywhere.
    /// - Parameters:
    ///   - url: the exit's link as the study gives it (nil: the panel's default, if it has one).
    ///   - participant: their ID, when known; `reason`: why (`declined`, `noCamera`, `full`, `groupFull`, ...);
    ///     `code`: the exit's code for the panel.
    package func exit(_ exit: Exit, _ url: String?, participant: String?, reason: String, code: String?) -> String? {
        switch self {
        case .generic:
            return CollectionSettings.redirect(url, [("participant", participant), ("reason", reason), ("code", code)])
        case .prolific:
            let base = url ?? Self.prolificCompletion
            return Self.code(in: base) != nil ? base : CollectionSettings.redirect(base, [("cc", code)])
        case .cint, .dynata:
            return link(exit, url, participant: participant)
        }
    }

    /// Cint's and Dynata's links: the ID in their parameter, and Dynata's outcome in `rst`.
    private func link(_ exit: Exit, _ url: String?, participant: String?) -> String? {
        guard let url, var components = URLComponents(string: url) else { return nil }
        var items = components.queryItems ?? []
        func set(_ name: String, _ value: String?) {
            items.removeAll { $0.name == name }
            if let value { items.append(URLQueryItem(name: name, value: value)) }
        }
        if self == .dynata {
            let status: [Exit: String] = [.complete: "1", .screenout: "2", .overquota: "3"]
            set("rst", status[exit])
        }
        set(idParameter, participant)
        components.queryItems = items
        return components.string
    }
}
