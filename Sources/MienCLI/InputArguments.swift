import ArgumentParser
import Foundation
import Mien

/// Where the inputs of `detect` and `analyze` come from: paths, a list file, a camera.
struct InputArguments: ParsableArguments {
    @Argument(help: "Images, folders of images and video files, in any mix.")
    var inputs: [String] = []

    @Option(help: "Read input paths from this file, one per line (- for standard input); empty lines are skipped.")
    var inputsFrom: String?

    @Option(help: "Read a camera: an index (0 = /dev/video0) or a device path.")
    var camera: String?

    @Option(help: "Stop each input after this many frames (a camera runs until Ctrl-C otherwise).")
    var maxFrames: Int?

    func validate() throws {
        if inputs.isEmpty && camera == nil && inputsFrom == nil {
            throw ValidationError("give at least one input, --inputs-from or --camera")
        }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        if let inputsFrom, inputsFrom != "-", !FileManager.default.isReadableFile(atPath: inputsFrom) {
            throw ValidationError("--inputs-from \(inputsFrom) cannot be read")
        }
    }

    /// How each input's run goes: `--max-frames`.
    /// - Throws: `ValidationError` (exit 64) for a limit below 1.
    func runSettings() throws -> RunSettings {
        do {
            return try RunSettings(maximumFrames: maxFrames)
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    /// Every input's name in order: the paths given, those of the list, then `camera:<device>`.
    /// - Throws: `ValidationError` (exit 64) when the list cannot be read or is empty with nothing else.
    func names() throws -> [String] {
        var names = inputs
        if let inputsFrom {
            let data: Data?
            if inputsFrom == "-" {
                data = try? FileHandle.standardInput.readToEnd()
            } else {
                data = FileManager.default.contents(atPath: inputsFrom)
            }
            guard let data else { throw ValidationError("--inputs-from \(inputsFrom) cannot be read") }
            names += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let camera { names.append(InputRunner.cameraPrefix + camera) }
        if names.isEmpty { throw ValidationError("--inputs-from \(inputsFrom ?? "") lists no input") }
        return names
    }
}

/// A list option (`--metrics`, `--format`): given once or repeated, each value a single choice or a
/// comma-separated list; never takes the inputs that follow it.
enum ListOption {
    /// The choices named by `values`, in order, without repeats.
    /// - Throws: `ValidationError` naming the option and the unknown value.
    static func parse<Choice: RawRepresentable & CaseIterable & Equatable>(
        _ values: [String], option: String, as: Choice.Type
    ) throws -> [Choice] where Choice.RawValue == String {
        var chosen: [Choice] = []
        for value in values.flatMap({ $0.split(separator: ",") }) {
            let name = value.trimmingCharacters(in: .whitespaces)
            guard let choice = Choice(rawValue: name) else {
                let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("\(option): unknown value '\(name)' (choose from \(known))")
            }
            if !chosen.contains(choice) { chosen.append(choice) }
        }
        return chosen
    }

    /// The values of a free-form list option, split at commas and trimmed, empty ones dropped.
    static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }
}
