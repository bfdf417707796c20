import Foundation
package import MienCore

/// The analysis snapshot of one input kept beside its outputs (`<folder>/.<name>.snapshot`): a writer that
/// replaces it atomically with each snapshot the detector hands over, and deletes it once the input is
/// complete, so re-identification's descriptors (biometric data) do not outlive their input.
///
/// The file is one line of header, `{"mienSnapshot":1,"sha256":"…"}`, then the JSON of `Envelope`; the header's
/// digest is of that JSON. A file whose digest or JSON does not check out is never trusted.
package final class SnapshotFile: SnapshotKeeping {
    package let path: String
    /// What the snapshots are of: a kept one must agree with it to be restored by a run with this writer.
    package let identity: Identity

    /// What a snapshot must agree with to be restored: the program that took it, the settings and the input.
    package struct Identity: Sendable, Codable, Equatable {
        /// The program's version and commit (`mien --version`).
        package var generator: String
        /// `DetectorOptions.settings`.
        package var settings: [String: String]
        /// The input's size and the SHA-256 of its first MiB (a folder: of its sorted entry names).
        package var input: String

        package init(generator: String, settings: [String: String], input: String) {
            self.generator = generator
            self.settings = settings
            self.input = input
        }

        /// The identity of analysing `path` with `settings`.
        package static func of(input path: String, generator: String, settings: [String: String]) -> Identity {
            Identity(generator: generator, settings: settings, input: fingerprint(of: path))
        }

        /// Size and SHA-256 of the first MiB of a file; the SHA-256 of the sorted entry names of a folder.
        static func fingerprint(of path: String) -> String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "missing" }
            if isDirectory.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
                return
                    "folder of \(names.count) entries, sha256 \(ModelStore.sha256(Data(names.joined(separator: "\n").utf8)))"
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? -1
            let head = FileHandle(forReadingAtPath: path).map { handle in
                defer { try? handle.close() }
                return (try? handle.read(upToCount: 1 << 20)) ?? Data()
            }
            return "\(size) bytes, first MiB sha256 \(ModelStore.sha256(head ?? Data()))"
        }
    }

    private struct Header: Codable {
        var mienSnapshot: Int
        var sha256: String
    }

    private struct Envelope: Codable {
        var identity: Identity
        var snapshot: AnalysisSnapshot
    }

    /// - Parameters:
    ///   - path: where the snapshot is kept.
    ///   - identity: what the snapshots are of, written with each.
    package init(path: String, identity: Identity) {
        self.path = path
        self.identity = identity
    }

    /// The snapshot file of the output `jsonlPath` (`<folder>/.<name>.snapshot`, `<name>` without `.jsonl`).
    package static func path(besideJSONLines jsonlPath: String) -> String {
        let url = URL(fileURLWithPath: jsonlPath)
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name).snapshot").path
    }

    package func keep(_ snapshot: AnalysisSnapshot) throws {
        let body = try Self.encoder.encode(Envelope(identity: identity, snapshot: snapshot))
        let header = try JSONEncoder().encode(
            Header(mienSnapshot: AnalysisSnapshot.currentFormat, sha256: ModelStore.sha256(body)))
        let file = try AtomicFile(path: path)
        do {
            try file.write(header + Data("\n".utf8) + body)
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
    }

    package func write(_ result: DetectorResult, frame: Frame?) throws {}

    /// Deletes the snapshot of a complete input; a stopped or failed one keeps it for `--resume`.
    package func finish(_ end: InputEnd) throws {
        guard end == .complete else { return }
        Self.remove(path)
    }

    package func fail(_ error: MienError) {}

    /// Deletes the snapshot at `path` and any temporary file a killed writer left of it.
    package static func remove(_ path: String) {
        for file in [path] + AtomicFile.leftovers(of: path) { try? FileManager.default.removeItem(atPath: file) }
    }

    /// Why a snapshot cannot be restored.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case damaged(String)
        case otherProgram(String)
        case otherSettings([String])
        case otherInput
        case otherFormat(Int)

        package var description: String {
            switch self {
            case .damaged(let reason): "its snapshot is damaged (\(reason))"
            case .otherProgram(let generator): "its snapshot was taken by another program (\(generator))"
            case .otherSettings(let names):
                "its snapshot was taken with other settings (\(names.joined(separator: ", ")))"
            case .otherInput: "its snapshot is of another input (the file changed)"
            case .otherFormat(let format): "its snapshot has another layout (\(format))"
            }
        }
    }

    /// The snapshot kept at `path`, if there is one and it agrees with `identity`.
    /// - Returns: nil when there is no file; the snapshot, or why it cannot be used.
    package static func load(path: String, identity: Identity) -> Result<AnalysisSnapshot, Refusal>? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let newline = data.firstIndex(of: UInt8(ascii: "\n")),
            let header = try? JSONDecoder().decode(Header.self, from: data[..<newline])
        else { return .failure(.damaged("no header")) }
        guard header.mienSnapshot == AnalysisSnapshot.currentFormat else {
            return .failure(.otherFormat(header.mienSnapshot))
        }
        let body = Data(data[data.index(after: newline)...])
        guard ModelStore.sha256(body) == header.sha256 else { return .failure(.damaged("its digest does not match")) }
        let envelope: Envelope
        do {
            envelope = try decoder.decode(Envelope.self, from: body)
        } catch {
            return .failure(.damaged("\(error)"))
        }
        guard envelope.identity.generator == identity.generator else {
            return .failure(.otherProgram(envelope.identity.generator))
        }
        let keys = Set(envelope.identity.settings.keys).union(identity.settings.keys)
        let changed = keys.filter { envelope.identity.settings[$0] != identity.settings[$0] }.sorted()
        guard changed.isEmpty else { return .failure(.otherSettings(changed)) }
        guard envelope.identity.input == identity.input else { return .failure(.otherInput) }
        return .success(envelope.snapshot)
    }

    /// How infinities and NaN are written: as strings, since JSON has no such numbers.
    ///
    /// Every other double round-trips exactly.
    private static let nonConforming = (positive: "inf", negative: "-inf", nan: "nan")

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: nonConforming.positive, negativeInfinity: nonConforming.negative, nan: nonConforming.nan)
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: nonConforming.positive, negativeInfinity: nonConforming.negative, nan: nonConforming.nan)
        return decoder
    }
}
