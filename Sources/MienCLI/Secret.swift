import ArgumentParser
import Foundation
import Mien
import MienService

/// A secret a command takes (the service's token, a database URL with its password) without it being on the
/// command line, where any local user reads it in `/proc/PID/cmdline`: from a file (`--token-file`,
/// `--store-file`: its first line, as Kubernetes mounts a Secret) or from the environment (`MIEN_TOKEN`,
/// `MIEN_STUDIES_URL`); the option itself still works, with a warning when what it carries is a secret.
struct Secret {
    /// The option that carries the secret itself (`--token`), for messages.
    var option: String
    /// The option that names a file holding it (`--token-file`).
    var fileOption: String
    /// The environment variable read when neither is given.
    var variable: String

    static let token = Secret(option: "--token", fileOption: "--token-file", variable: "MIEN_TOKEN")
    static let store = Secret(option: "--store", fileOption: "--store-file", variable: "MIEN_STUDIES_URL")

    /// The secret: `value` (given on the command line), else the first line of `file`, else the environment's.
    /// - Throws: `ValidationError` when both the value and a file are given, or the file cannot be read or is
    ///   empty (naming the file, never its content).
    func resolve(
        _ value: String?, file: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        if value != nil, file != nil { throw ValidationError("give \(option) or \(fileOption), not both") }
        if let value { return value }
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ValidationError(
                    "\(fileOption) \(file): cannot be read (\((error as NSError).localizedDescription))")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard let line, !line.isEmpty else { throw ValidationError("\(fileOption) \(file): the file is empty") }
            return line
        }
        return environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Warns (standard error) when a database URL on the command line carries its password.
    static func warnIfPasswordInArguments(_ url: String?, option: String, command: String) {
        guard let url, MienService.redactedDatabaseURL(url) != url else { return }
        Console.error(
            "\(command): warning: the password in \(option) can be read by any user of this machine while the "
                + "command runs (/proc/PID/cmdline); give the URL in MIEN_STUDIES_URL or --store-file, or the "
                + "password in PGPASSWORD or the PGPASSFILE file\n")
    }
}
