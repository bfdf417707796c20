import Foundation

/// How a panel provider takes its participants back (`mien study init --panel`): which query parameter of the
/// completion and screen-out links carries the code, and which code a completer is shown.
///
/// - `generic` (the default): the completion link gets `participant=` and `code=` (the participant's own
///   completion code, the one `approvals.csv` lists), the screen-out link `participant=`, `reason=` and
///   `code=` (`--screenout-code`); the page shows the participant's own code.
/// - `prolific`: Prolific reads the code from `cc=` and knows the participant from the submission, so the
///   completion link is Prolific's completion URL exactly as given (it must carry `cc=`), and the page shows that
///   `cc` as the code to paste should the redirect fail; the screen-out link is the screen-out URL (by default
///   Prolific's completion address) with `cc=` set to `--screenout-code` (a code made for screened-out
///   participants in the Prolific study) and nothing else. Participants arrive with `PROLIFIC_PID=`.
package enum PanelConventions: String, Sendable, Codable, CaseIterable {
    case generic, prolific

    /// Prolific's completion address, where its `cc=` codes are read.
    package static let prolificCompletion = "https://app.prolific.com/submissions/complete"

    /// The query parameter that carries a code back to the panel.
    package var codeParameter: String { self == .prolific ? "cc" : "code" }

    /// Refuses settings this panel cannot take participants back with.
    func validate(completionURL: String?, screenoutCode: String?) throws {
        guard self == .prolific else { return }
        guard let completionURL, Self.code(in: completionURL) != nil else {
            throw MienError(
                .invalidOptions,
                "--panel prolific needs Prolific's completion URL with its code (--completion-url \(Self.prolificCompletion)?cc=CODE)"
            )
        }
        if screenoutCode == nil {
            throw MienError(
                .invalidOptions,
                "--panel prolific needs --screenout-code: a completion code you made in the Prolific study for participants screened out (no camera, no face, declined)"
            )
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
        }
    }

    /// Where someone who cannot take part is sent, if anywhere.
    package func screenout(_ screenoutURL: String?, participant: String?, reason: String, code: String?) -> String? {
        switch self {
        case .generic:
            return CollectionSettings.redirect(
                screenoutURL, [("participant", participant), ("reason", reason), ("code", code)])
        case .prolific:
            let base = screenoutURL ?? Self.prolificCompletion
            return Self.code(in: base) != nil ? base : CollectionSettings.redirect(base, [("cc", code)])
        }
    }
}
