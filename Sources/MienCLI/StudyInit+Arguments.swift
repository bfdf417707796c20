import ArgumentParser
import Foundation
import Mien

/// What `mien study init`'s arguments become: the dashboard's targets, and the option types it parses.
extension StudyInit {
    /// The targets: `N` for the whole study, `GROUP=N` per group.
    func targets() throws -> [String: Int] {
        var targets: [String: Int] = [:]
        for item in target.flatMap({ $0.split(separator: ",") }) {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let (group, count) = parts.count == 2 ? (parts[0], parts[1]) : (StudyManifest.wholePanel, parts[0])
            guard let number = Int(count) else {
                throw ValidationError("--target \(item): give N or GROUP=N (a whole number of participants)")
            }
            targets[group] = number
        }
        return targets
    }
}

extension CollectionSettings.Order: ExpressibleByArgument {}
extension PanelConventions: ExpressibleByArgument {}
