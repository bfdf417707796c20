import Foundation
public import MienCore

/// Decodes still images (files or bytes) into frames, with the checks a batch job needs: a missing file,
/// a directory, an empty file, a file that is not an image and an image over the pixel limit each get
/// their own clear error naming the input.
public enum ImageDecoder {
    /// File extensions read from folders (lower case).
    ///
    /// OpenCV 4.6 on Debian decodes all of these.
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "bmp", "dib", "webp", "tif", "tiff", "pbm", "pgm", "ppm", "pnm", "pxm",
        "jp2", "exr", "hdr", "pic", "sr", "ras",
    ]

    /// Extensions of files read as videos, frame by frame (FFmpeg), when given on their own.
    ///
    /// Video containers and GIF. One rule on every path: a GIF is a video to Mien (OpenCV 4.6 has no GIF decoder, FFmpeg reads
    /// GIF's frames and their delays), so it is analysed where a file is (`mien detect`, `mien analyze`,
    /// `POST /v1/jobs`), and refused with that reason where one picture is expected (`POST /v1/analyze`, a
    /// live frame) or skipped and listed in a folder of pictures.
    public static let videoLikeExtensions: Set<String> = [
        "mp4", "m4v", "mov", "avi", "mkv", "webm", "mpg", "mpeg", "wmv", "flv", "3gp", "ts", "mts", "ogv", "gif",
    ]

    /// Reads and decodes the image file at `path`, honouring EXIF orientation.
    /// - Parameter maximumPixels: images larger than this are refused before decoding.
    /// - Throws: `MienError` with `.notFound`, `.unreadable`, `.corruptData`, `.unsupportedFormat` or
    ///   `.tooLarge`, naming `path`.
    public static func decode(file path: String, maximumPixels: Int = ImageLimits.maximumPixels) throws -> Frame {
        try decode(bytes: readFile(path), input: path, maximumPixels: maximumPixels)
    }

    /// Decodes an encoded image held in memory.
    /// - Parameter input: how errors name these bytes.
    public static func decode(
        bytes: [UInt8], input: String = "<memory>", maximumPixels: Int = ImageLimits.maximumPixels,
        timestamp: Double = 0, index: Int = 0
    ) throws -> Frame {
        guard !bytes.isEmpty else { throw MienError(.corruptData, "the file is empty", input: input) }
        if bytes.starts(with: Array("GIF8".utf8)) {
            throw MienError(
                .unsupportedFormat,
                "is a GIF, which Mien reads as a video (frame by frame), not as one picture: give it as a file of its own (mien analyze, POST /v1/jobs)",
                input: input)
        }
        guard let header = ImageHeader.probe(bytes) else {
            throw MienError(.unsupportedFormat, "not an image Mien can read (no known image signature)", input: input)
        }
        if let pixels = header.pixelCount, pixels > maximumPixels {
            throw MienError(
                .tooLarge,
                "image is \(header.width ?? 0)x\(header.height ?? 0) (\(pixels) pixels), over the limit of \(maximumPixels)",
                input: input)
        }
        if ImageHeader.isTruncated(bytes, format: header.format) {
            throw MienError(
                .corruptData,
                "is truncated: the \(header.format.rawValue.uppercased()) data ends before the picture does (\(bytes.count) bytes)",
                input: input)
        }
        do {
            let image = try DecodedImage(bytes: bytes, maximumPixels: maximumPixels, input: input)
            return try image.frame(timestamp: timestamp, index: index)
        } catch var error as MienError {
            if error.code == .corruptData {
                error.message = "could not be decoded as \(header.format.rawValue.uppercased()) (corrupt or truncated)"
            }
            throw error.naming(input)
        }
    }

    /// The bytes of a regular file, with a specific error for each way that can fail.
    static func readFile(_ path: String) throws -> [UInt8] {
        let url = try readableRegularFile(path)
        // Foundation's Data(contentsOf:) leaks its 4 KiB buffer on an empty file (LeakSanitizer, make sanitize).
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 { return [] }
        do {
            return [UInt8](try Data(contentsOf: url))
        } catch {
            throw MienError(
                .unreadable, "could not be read", input: path, cause: (error as NSError).localizedDescription)
        }
    }

    /// Checks that `path` names a readable regular file (not a folder) and returns its URL.
    /// - Throws: `.notFound` or `.unreadable` naming `path`.
    static func readableRegularFile(_ path: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MienError(.notFound, "no such file", input: path)
        }
        guard !isDirectory.boolValue else {
            throw MienError(.unreadable, "is a directory, expected a file", input: path)
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MienError(.unreadable, "permission denied", input: path)
        }
        return URL(fileURLWithPath: path)
    }
}
