import Foundation
public import MienCore

/// The images of a folder, in file-name order, one frame each.
///
/// Regular files whose extension is an image extension (`ImageDecoder.imageExtensions`) are read; every
/// other entry is skipped and listed in `info.skipped` with the reason (a README, a video or GIF, which is
/// read as a video when given on its own, a sub-folder even if it is named `x.jpg`), except hidden entries
/// such as `.DS_Store`. An image that fails to decode makes `nextFrame()` throw an error naming that file;
/// the next call continues with the following file. Frame `index` is the image's position among the
/// images, `file` its name; `timestamp` is `index * interval`.
public final class ImageFolderSource: FrameSource {
    public let name: String
    public let info: SourceInfo
    /// The image files, in the order they are read.
    public let files: [String]
    /// Seconds between consecutive images: 0 for unrelated (discrete) images, or the capture interval
    /// for continuous images (e.g.
    ///
    /// 1 for one frame a second).
    public let interval: Double
    private let maximumPixels: Int
    private var position = 0

    /// Lists the folder at once.
    /// - Throws: `.notFound` (no such folder, or no picture in it) or `.unreadable`, naming the folder.
    public init(path: String, interval: Double = 0, maximumPixels: Int = ImageLimits.maximumPixels) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MienError(.notFound, "no such folder", input: path)
        }
        guard isDirectory.boolValue else { throw MienError(.unreadable, "is not a folder", input: path) }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw MienError(
                .unreadable, "could not be listed", input: path, cause: (error as NSError).localizedDescription)
        }
        var pictures: [String] = []
        var skipped: [SkippedItem] = []
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            let full = (path as NSString).appendingPathComponent(entry)
            var entryIsFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: full, isDirectory: &entryIsFolder)
            let ext = (entry as NSString).pathExtension.lowercased()
            if entryIsFolder.boolValue {
                skipped.append(SkippedItem(file: entry, reason: "a folder (folders are not read recursively)"))
            } else if ImageDecoder.imageExtensions.contains(ext) {
                pictures.append(entry)
            } else if ImageDecoder.videoLikeExtensions.contains(ext) {
                skipped.append(
                    SkippedItem(file: entry, reason: "a video or animated picture: give its path on its own"))
            } else {
                skipped.append(SkippedItem(file: entry, reason: "not a picture Mien reads"))
            }
        }
        guard !pictures.isEmpty else {
            // Nothing to analyse is a failure to say, not a run that "succeeds" with 0 frames.
            let listed = skipped.prefix(5).map { "\($0.file): \($0.reason)" }.joined(separator: "; ")
            throw MienError(
                .notFound,
                "has no pictures Mien reads (extensions: \(ImageDecoder.imageExtensions.sorted().joined(separator: ", ")))"
                    + (skipped.isEmpty
                        ? "" : "; skipped \(skipped.count): \(listed)\(skipped.count > 5 ? "; ..." : "")"),
                input: path)
        }
        files = pictures.map { (path as NSString).appendingPathComponent($0) }
        name = path
        self.interval = interval
        self.maximumPixels = maximumPixels
        info = SourceInfo(kind: .imageFolder, frameCount: files.count, skipped: skipped)
    }

    public func nextFrame() throws -> Frame? {
        guard position < files.count else { return nil }
        let index = position
        position += 1
        var frame = try ImageDecoder.decode(file: files[index], maximumPixels: maximumPixels)
        frame.index = index
        frame.file = (files[index] as NSString).lastPathComponent
        frame.timestamp = Double(index) * interval
        return frame
    }
}
