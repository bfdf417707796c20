import Foundation
import HTTPTypes
import Logging
import Mien

/// Every study folder under `mien serve --studies PARENT`, by name (the folder's name).
///
/// A folder that is not a study, or whose settings or stimuli do not check, is not served; why is logged at
/// start and `GET /studies` (researcher) lists it.
final class StudyDesk: Sendable {
    let parent: URL
    let studies: [String: CollectedStudy]
    /// Folders that could not be served, with the reason.
    let refused: [String: String]
    let dashboards: DashboardCache

    /// - Throws: `.notFound` when `parent` is not a folder.
    init(parent: URL, logger: Logger = CollectedStudy.logger) throws {
        self.parent = parent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw MienError(.notFound, "--studies: not a folder", input: parent.path)
        }
        var studies: [String: CollectedStudy] = [:]
        var refused: [String: String] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for name in names.sorted() where CollectionFolder.isCollected(parent.appendingPathComponent(name)) {
            guard CollectionSettings.isName(name) else {
                refused[name] = "a study's folder name is 1-64 letters, digits, '_' or '-'"
                continue
            }
            do {
                studies[name] = try CollectedStudy(folder: parent.appendingPathComponent(name))
            } catch {
                refused[name] = (error as? MienError)?.description ?? "\(error)"
                logger.error("study \(name) is not served: \(refused[name] ?? "")")
            }
        }
        self.studies = studies
        self.refused = refused
        dashboards = DashboardCache()
    }

    /// The study of that name.
    /// - Throws: `ServiceRefusal` 404.
    func study(_ name: String) throws -> CollectedStudy {
        guard let study = studies[name] else {
            throw ServiceRefusal(status: .notFound, code: "notFound", message: "no study of that name is served here")
        }
        return study
    }
}
