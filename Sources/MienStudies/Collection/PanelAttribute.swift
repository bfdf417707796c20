import Foundation
import Mien

/// What a panel knows of a participant and passes in the study link (`&age=25-34&sex=female`), declared with the
/// values it may take at `mien study init --attribute age=18-24,25-34,35-44,45-54,55+` (issue 80 item 5).
///
/// Only declared attributes with a declared value are kept (in the session, `manifest.csv`'s `attribute.NAME`
/// columns and every table after them): a link cannot smuggle free text, a name or an e-mail address into the
/// study, and a value the panel sends that the study did not declare is kept as nothing, never a refusal (the
/// participant still takes part). The consent and `STORED.md` name each attribute.
package struct PanelAttribute: Sendable, Codable, Equatable {
    /// The link's parameter and the attribute's name: 1-32 letters, digits, `_` and `-`.
    package var name: String
    /// The values it may take, in the order the study lists them: 1-40 characters each, no comma.
    package var values: [String]

    /// The most attributes a study declares, and values an attribute takes.
    package static let maximumCount = 10
    package static let maximumValues = 50
    /// Parameters the link already uses for something else.
    package static let reserved: Set<String> = [
        "participant", "group", "gs", "PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "RID", "rid", "psid", "token", "code",
        "cc",
    ]

    package init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    /// `NAME=VALUE,VALUE,...` (`age=18-24,25-34,55+`).
    /// - Throws: `.invalidOptions` saying what is wrong with `text`.
    package init(parsing text: String) throws {
        guard let equals = text.firstIndex(of: "=") else {
            throw MienError(.invalidOptions, "--attribute \(text): write NAME=VALUE,VALUE,... (age=18-24,25-34,35+)")
        }
        self.init(
            name: String(text[..<equals]),
            values: text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        try validate()
    }

    /// - Throws: `.invalidOptions` naming the attribute: a name that is not one, a reserved parameter, no value, an
    ///   empty, too long or repeated value.
    package func validate() throws {
        func refuse(_ message: String) -> MienError { MienError(.invalidOptions, "--attribute \(name): \(message)") }
        guard (1...32).contains(name.utf8.count), CollectionSettings.isName(name) else {
            throw refuse("a name is 1-32 letters, digits, '_' or '-'")
        }
        guard !Self.reserved.contains(name) else {
            throw refuse("the link uses \(name) already (\(Self.reserved.sorted().joined(separator: ", ")))")
        }
        guard !values.isEmpty, values.count <= Self.maximumValues else {
            throw refuse("give 1-\(Self.maximumValues) values, separated by commas")
        }
        for value in values {
            guard (1...40).contains(value.count), !value.contains(where: { $0.isNewline || $0 == "," }) else {
                throw refuse("a value is 1-40 characters of one line ('\(value)')")
            }
        }
        if Set(values).count != values.count { throw refuse("a value is given twice") }
    }

    /// What a link gave (`given`) kept as the study declared it: each declared attribute with one of its values.
    package static func kept(_ given: [String: String]?, declared: [PanelAttribute]?) -> [String: String]? {
        guard let declared, !declared.isEmpty, let given else { return nil }
        var kept: [String: String] = [:]
        for attribute in declared {
            if let value = given[attribute.name], let match = attribute.value(matching: value) {
                kept[attribute.name] = match
            }
        }
        return kept.isEmpty ? nil : kept
    }

    /// The declared attributes `given` names with a value the study does not declare (dropped, and counted on the
    /// dashboard), sorted.
    package static func dropped(_ given: [String: String]?, declared: [PanelAttribute]?) -> [String] {
        guard let declared, let given else { return [] }
        return declared.filter { attribute in
            given[attribute.name].map { attribute.value(matching: $0) == nil } ?? false
        }.map(\.name).sorted()
    }

    /// The declared value `received` is: the same, or the same but for a `+` read as a space (issue 96: a panel
    /// that fills `45+` into a link unencoded sends `45 `, since a `+` in a query is a space).
    package func value(matching received: String) -> String? {
        if values.contains(received) { return received }
        return values.first { $0.contains("+") && $0.replacingOccurrences(of: "+", with: " ") == received }
    }

    /// The manifest's column of an attribute.
    package static func column(_ name: String) -> String { "attribute.\(name)" }
}
