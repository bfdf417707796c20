internal import CMienBridge
public import Foundation
package import MienCore

/// Finds the models directory and hands out model bytes whose SHA-256 has been checked.
///
/// Lookup order for the directory (the first that holds `MANIFEST.json` wins):
/// 1. the `directory` given to `init(directory:)`;
/// 2. the `MIEN_MODELS` environment variable (when set, it is the only place looked at, so a wrong
///    value is an error rather than silently replaced by another copy of the models);
/// 3. `Models/` beside or above the running executable (a SwiftPM build in `.build/<config>/`), and
///    `../share/mien/Models` from it (an installed layout);
/// 4. `Models/` in the current directory or one of its parents.
public struct ModelStore: Sendable {
    /// The directory the models are read from.
    public let directory: URL

    /// The manifest file every models directory carries.
    public static let manifestName = "MANIFEST.json"

    /// - Throws: `MienError.Code.modelMissing` naming the places searched when none holds the models.
    public init(directory: URL? = nil) throws {
        let environment = ProcessInfo.processInfo.environment["MIEN_MODELS"].flatMap { $0.isEmpty ? nil : $0 }
        if let directory = directory ?? environment.map({ URL(fileURLWithPath: $0) }) {
            guard Self.holdsManifest(directory) else {
                throw MienError(
                    .modelMissing, "no \(Self.manifestName) in the models directory", input: directory.path)
            }
            self.directory = directory
            return
        }
        let candidates = Self.candidateDirectories()
        guard let found = candidates.first(where: Self.holdsManifest) else {
            throw MienError(
                .modelMissing,
                "Mien's models were not found; set MIEN_MODELS to the Models directory of the Mien checkout",
                input: candidates.map(\.path).joined(separator: ", "))
        }
        self.directory = found
    }

    /// Where `model`'s file is (whether or not it is there).
    package func url(of model: ModelDescriptor) -> URL {
        directory.appendingPathComponent(model.fileName)
    }

    /// The verified bytes of `model`, as read (not copied into an array: start-up sets the peak memory).
    /// - Throws: `.modelMissing` when the file is absent or unreadable, `.modelAltered` when its SHA-256
    ///   differs from the one this build expects; both name the file.
    package func bytes(of model: ModelDescriptor) throws -> Data {
        let url = url(of: model)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MienError(
                .modelMissing, "model file is missing or unreadable; run `make models` to rebuild Models/",
                input: url.path, cause: (error as NSError).localizedDescription)
        }
        let digest = Self.sha256(data)
        guard digest == model.sha256 else {
            throw MienError(
                .modelAltered,
                "model file has SHA-256 \(digest), expected \(model.sha256): it was altered or truncated; run `make models`",
                input: url.path)
        }
        return data
    }

    /// Whether `model`'s file is present with the expected checksum (for `mien models`).
    package func verify(_ model: ModelDescriptor) -> Result<Void, MienError> {
        do {
            _ = try bytes(of: model)
            return .success(())
        } catch let error as MienError {
            return .failure(error)
        } catch {
            return .failure(MienError(.internalFailure, "\(error)", input: model.fileName))
        }
    }

    /// Lower-case hex SHA-256 of `data` (FFmpeg's libavutil through the bridge).
    public static func sha256(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = data.withUnsafeBytes { raw in
            mien_sha256(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &digest, nil)
        }
        // The bridge fails only for NULL pointers (never passed here): its context is on the stack.
        precondition(status == MIEN_OK, "mien_sha256 failed with status \(status.rawValue)")
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    // MARK: - Lookup

    private static func holdsManifest(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent(manifestName).path)
    }

    private static func candidateDirectories() -> [URL] {
        var result: [URL] = []
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        result.append(executable.appendingPathComponent("../share/mien/Models").standardizedFileURL)
        result += ancestors(of: executable).map { $0.appendingPathComponent("Models") }
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        result += ancestors(of: current).map { $0.appendingPathComponent("Models") }
        return result
    }

    /// `url` and up to five of its parents.
    private static func ancestors(of url: URL) -> [URL] {
        var list: [URL] = []
        var current = url.standardizedFileURL
        for _ in 0..<6 {
            list.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { break }
            current = parent
        }
        return list
    }
}
