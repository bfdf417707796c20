import Foundation

/// Opens the right `FrameSource` for a path given on a command line or in a batch list.
package enum InputSource {
    /// Extensions (lower case) opened with FFmpeg as videos: containers, and GIF
    /// (`ImageDecoder.videoLikeExtensions`).
    package static let videoExtensions: Set<String> = ImageDecoder.videoLikeExtensions

    /// Opens `path`: a folder becomes an `ImageFolderSource`, an image extension an `ImageSource`, a video
    /// extension a `VideoFileSource`.
    ///
    /// Anything else is sniffed: image signature → image, else video. Videos are opened
    /// `VideoFileSource.forAnalysis`, since what it opens is read to be analysed.
    /// - Parameters:
    ///   - path: a picture, a video or a folder of pictures.
    ///   - imageInterval: seconds between the images of a folder (0 = unrelated images).
    /// - Throws: `MienError` naming `path`.
    package static func open(path: String, imageInterval: Double = 0) throws -> any FrameSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MienError(.notFound, "no such file or folder", input: path)
        }
        if isDirectory.boolValue { return try ImageFolderSource(path: path, interval: imageInterval) }
        let ext = (path as NSString).pathExtension.lowercased()
        if ImageDecoder.imageExtensions.contains(ext) { return try ImageSource(path: path) }
        if videoExtensions.contains(ext) { return try VideoFileSource.forAnalysis(path: path) }
        if let handle = FileHandle(forReadingAtPath: path) {
            let head = [UInt8](handle.readData(ofLength: 64))
            try? handle.close()
            if ImageHeader.probe(head) != nil { return try ImageSource(path: path) }
        }
        do {
            return try VideoFileSource.forAnalysis(path: path)
        } catch let error as MienError where error.code == .corruptData {
            throw MienError(
                .unsupportedFormat, "neither an image nor a video Mien can read", input: path, cause: error.message)
        }
    }

    /// Opens camera `index` (`/dev/video<index>`) or a device path.
    package static func openCamera(_ device: String, width: Int = 0, height: Int = 0, framesPerSecond: Double = 0)
        throws
        -> CameraSource
    {
        let path = Int(device).map(CameraSource.devicePath(index:)) ?? device
        return try CameraSource(device: path, width: width, height: height, framesPerSecond: framesPerSecond)
    }
}
