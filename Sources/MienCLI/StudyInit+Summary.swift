import Foundation
import Mien
import MienStudies

/// What `mien study init` prints once the study is written: the study in a line, how to serve it, its links.
extension StudyInit {
    /// - Parameter registered: whether the study was registered in a database (`--store`).
    func printSummary(_ settings: CollectionSettings, study: CollectionFolder, registered: Bool) {
        let total = settings.stimuli.reduce(0) { $0 + $1.duration }
        let name = study.url.lastPathComponent
        // The declared attributes ride on the link as the panel fills them in (&age=AGE), percent-encoded (issue 96:
        // `45+` filled in unencoded arrives as `45 `; it is still matched, and the example shows the encoding).
        let id =
            settings.fieldwork.panelConventions.linkTemplate
            + (settings.attributes ?? []).map { "&\($0.name)=\($0.name.uppercased())" }.joined()
        let encodedExample = (settings.attributes ?? []).compactMap { attribute -> String? in
            guard let value = attribute.values.first(where: { $0.contains("+") }) ?? attribute.values.first else {
                return nil
            }
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            return "\(attribute.name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
        let links = settings.groups.map { group in
            let signed = settings.fieldwork.groupLinkKey.map {
                "&gs=\(GroupLink.signature(group: group, key: $0))"
            }
            return "\n  group \(group): http://HOST:PORT/studies/\(name)/?\(id)&group=\(group)\(signed ?? "")"
        }.joined()
        print(
            """
            study \(study.url.lastPathComponent): \(settings.stimuli.count) stimul\(settings.stimuli.count == 1 ? "us" : "i") (\(String(format: "%.1f", total)) s), \
            \(settings.groups.isEmpty ? "one group" : "groups \(settings.groups.joined(separator: ", "))"), \(settings.order.rawValue) order, \
            \(settings.record ? "webcam recorded" : "numbers only, no video kept"), \(settings.frameRate) frames/s\(settings.questions.map { ", \($0.questions.count) question\($0.questions.count == 1 ? "" : "s") asked" } ?? "")
            serve it:  mien serve --studies \(study.url.deletingLastPathComponent().path) --token-file TOKEN-FILE\(registered ? " --store-file URL-FILE" : "") (or MIEN_TOKEN\(registered ? " and MIEN_STUDIES_URL" : "") set)
            the link:  http://HOST:PORT/studies/\(name)/?\(id)\(settings.groups.isEmpty ? "" : " (the server balances the groups), or one group's:\(links)")
            dashboard: http://HOST:PORT/studies/\(study.url.lastPathComponent)/dashboard?token=TOKEN
            """)
        if !encodedExample.isEmpty {
            print(
                "attributes: percent-encode each value in the link, e.g. \(encodedExample) (a + unencoded reads as a space)"
            )
        }
    }
}
