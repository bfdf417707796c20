import Foundation
import Mien
import MienCore

/// Standard output and standard error for the tool, without Foundation's `FileHandle.write(_:)`, which
/// traps on a full disk or a closed pipe (found by the bad-input suite: `mien analyze > /dev/full`).
enum Console {
    /// Held while one write reaches standard output.
    private static let outputLock = Locked(())

    /// Writes `data` to standard output whole (parallel inputs never interleave within a line).
    /// - Throws: `.ioFailure` naming standard output when it is full or closed.
    static func output(_ data: Data) throws {
        try outputLock.withLock { _ in
            do {
                try FileHandle.standardOutput.write(contentsOf: data)
            } catch {
                throw MienError(
                    .ioFailure, "cannot write (disk full, or the reading end closed)", input: "standard output",
                    cause: (error as NSError).localizedDescription)
            }
        }
    }

    /// Writes `text` to standard error; a failure there has nowhere to be reported and is ignored.
    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
