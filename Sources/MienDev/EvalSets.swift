import Foundation

/// The data sets of an evaluation folder (`EVAL_DIR`): which are there, and a `SKIPPED <set>` line for each
/// one a section wanted and did not find, so `make eval` runs on any folder of the layout.
final class EvalSets {
    let root: URL
    private(set) var skipped: [String] = []

    init(root: URL) { self.root = root }

    /// The folder of `name`, or nil (said once, as `SKIPPED <name>`) when it is absent.
    func folder(_ name: String) -> URL? {
        let url = root.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return url
        }
        if !skipped.contains(name) {
            skipped.append(name)
            print("SKIPPED \(name): not in \(root.path)")
        }
        return nil
    }

    /// Whether every one of `names` is there (each absent one said once).
    func has(_ names: String...) -> Bool { names.map { folder($0) != nil }.allSatisfy { $0 } }

    /// The videos of `name` in name order (found by listing, whatever they are called).
    func videos(in name: String) -> [String] {
        guard let folder = folder(name),
            let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return files.filter { Self.videoExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            .map { folder.appendingPathComponent($0).path }
    }

    private static let videoExtensions: Set<String> = ["mp4", "mov", "mkv", "avi", "webm", "m4v"]
}
