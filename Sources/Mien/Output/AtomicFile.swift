import Foundation

/// An output file written under a temporary name beside its destination and renamed into place by
/// `commit()`, so a reader never sees a half-written file under the real name (a crash or a full disk
/// leaves only the temporary file, which `--resume` ignores).
public final class AtomicFile {
    /// Where the file will be once committed.
    public let path: String
    private let temporaryPath: String
    private let handle: FileHandle
    private var closed = false

    /// Creates the temporary file.
    /// - Throws: `.ioFailure` naming the destination when its folder is missing or not writable.
    public init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath =
            url.deletingLastPathComponent().appendingPathComponent(
                ".\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)"
            ).path
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporaryPath)
        else {
            throw MienError(.ioFailure, "cannot create an output file (is the folder there and writable?)", input: path)
        }
        self.handle = handle
    }

    /// Appends `text` as UTF-8 and flushes it to the file.
    /// - Throws: `.ioFailure` naming the file (for example when the disk is full).
    public func write(_ text: String) throws {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw MienError(.ioFailure, "cannot write output", input: path, cause: "\(error)")
        }
    }

    /// Closes the file and moves it to `path`, replacing any previous file there.
    /// - Throws: `.ioFailure` naming the file.
    public func commit() throws {
        guard !closed else { return }
        closed = true
        do {
            try handle.synchronize()
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporaryPath, toPath: path)
        } catch {
            throw MienError(.ioFailure, "cannot finish output", input: path, cause: "\(error)")
        }
    }

    /// Closes and deletes the temporary file (the destination is left as it was).
    public func abandon() {
        guard !closed else { return }
        closed = true
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }

    deinit { abandon() }
}
