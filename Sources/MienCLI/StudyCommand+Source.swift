import ArgumentParser
import Foundation
import Mien
import MienStudies

/// Where `mien study` reads a study from: a manifest, a collected study's folder, or its database.
extension StudyCommand {
    /// The manifest's path, and the collected study's folder when it is one (`mien serve --studies` measured its
    /// frames as they came: its rows name result files, not videos, and nothing is analysed again).
    var manifestSource: (path: String, collected: CollectionFolder?) {
        let url = URL(fileURLWithPath: manifest)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: manifest, isDirectory: &isDirectory), isDirectory.boolValue {
            let folder = CollectionFolder(url)
            return (folder.manifest.path, CollectionFolder.isCollected(url) ? folder : nil)
        }
        // Only the collected study's own manifest names result files; another manifest in the folder (the
        // recorded webcams' `recorded.csv`) names videos to analyse.
        let parent = url.deletingLastPathComponent()
        let collected = CollectionFolder.isCollected(parent) && url.lastPathComponent == "manifest.csv"
        return (manifest, collected ? CollectionFolder(parent) : nil)
    }

    /// The database of a collected study named by the argument (`--store` or `--store-file`, or
    /// `MIEN_STUDIES_URL` when the argument names no file or folder).
    /// - Throws: `ValidationError` when `--store-file` cannot be read.
    func storeURL() throws -> String? {
        if store != nil || storeFile != nil { return try Secret.store.resolve(store, file: storeFile) }
        guard !FileManager.default.fileExists(atPath: manifest) else { return nil }
        return try Secret.store.resolve(nil, file: nil)
    }

    /// Reads the manifest and segments, or refuses with their error (exit 64: nothing was analysed).
    func inputs() throws -> (StudyManifest, [StudySegment]) {
        do {
            return (
                try StudyManifest(path: manifestSource.path), try segments.map(StudySegments.read(path:)) ?? []
            )
        } catch let error as MienError {
            throw ValidationError(error.description)
        }
    }
}
