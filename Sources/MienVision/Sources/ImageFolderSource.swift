import Foundation
public import MienCore

/// The images of a folder, in file-name order, one frame each.
///
/// Files whose extension is not an image extension (`ImageDecoder.imageExtensions`) are skipped, so a
/// README or a `.DS_Store` beside the pictures is not an error. An image that fails to decode makes
/// `nextFrame()` throw an error naming that file; the next call continues with the following file.
/// Frame `index` is the image's position among the images; `timestamp` is `index * interval`.
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
    /// - Throws: `.notFound` or `.unreadable` naming the folder.
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
        files =
            entries
            .filter { ImageDecoder.imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { (path as NSString).appendingPathComponent($0) }
        name = path
        self.interval = interval
        self.maximumPixels = maximumPixels
        info = SourceInfo(kind: .imageFolder, frameCount: files.count)
    }

    public func nextFrame() throws -> Frame? {
        guard position < files.count else { return nil }
        let index = position
        position += 1
        var frame = try ImageDecoder.decode(file: files[index], maximumPixels: maximumPixels)
        frame.index = index
        frame.timestamp = Double(index) * interval
        return frame
    }
}
