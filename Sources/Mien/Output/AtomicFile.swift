package import Foundation
import Synchronization

/// An output file written under a temporary name beside its destination and renamed into place by
/// `commit()`, so a reader never sees a half-written file under the real name (a crash or a full disk
/// leaves only the temporary file, which `--resume` ignores).
package final class AtomicFile {
    /// Where the file will be once committed.
    package let path: String
    private let temporaryPath: String
    /// Numbers the temporary files this process creates.
    private static let sequence = Atomic<Int>(0)
    private let handle: FileHandle
    private var closed = false

    /// Creates the temporary file.
    /// - Throws: `.ioFailure` naming the destination when its folder is missing or not writable.
    package init(path: String) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MienError(.ioFailure, "is a folder; an output file cannot replace it", input: path)
        }
        // The process ID names the writer; the sequence number keeps two files for one destination in one
        // process apart (a service re-running a job while the first run's writer is being released), so one
        // never deletes the other's temporary file.
        let sequence = Self.sequence.add(1, ordering: .relaxed).newValue
        temporaryPath = Self.temporaryPrefix(of: path) + "\(ProcessInfo.processInfo.processIdentifier)-\(sequence)"
        // open(2), not FileManager.createFile: Foundation writes even an empty file through a temporary file of
        // its own (".dat.nosync…") renamed into place, and a process killed in between left that file in the
        // output folder, where nothing cleans it up (found by the resume test's kills at random points).
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw MienError(
                .ioFailure, "cannot create an output file (is the folder there and writable?)", input: path,
                cause: String(cString: strerror(errno)))
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Appends `text` as UTF-8 and flushes it to the file.
    /// - Throws: `.ioFailure` naming the file (for example when the disk is full).
    package func write(_ text: String) throws { try write(Data(text.utf8)) }

    /// Appends `data` and flushes it to the file.
    /// - Throws: `.ioFailure` naming the file (for example when the disk is full).
    package func write(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw MienError(.ioFailure, "cannot write output", input: path, cause: Self.reason(error))
        }
    }

    /// Flushes the file to disk and renames it to `path` in one step (rename(2)): a previous file there is
    /// replaced atomically, a folder there is never touched.
    /// - Throws: `.ioFailure` naming the file; the temporary file is then deleted.
    package func commit() throws {
        guard !closed else { return }
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            abandon()
            throw MienError(.ioFailure, "cannot finish output", input: path, cause: Self.reason(error))
        }
        closed = true
        guard rename(temporaryPath, path) == 0 else {
            let cause = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw MienError(.ioFailure, "cannot finish output", input: path, cause: cause)
        }
    }

    /// Closes the temporary file and leaves it where it is, under its temporary name: what was written stays
    /// for a later recovery (`ResumeCheckpoint`), and the destination is left as it was.
    package func release() {
        guard !closed else { return }
        closed = true
        try? handle.close()
    }

    /// Closes and deletes the temporary file (the destination is left as it was).
    package func abandon() {
        guard !closed else { return }
        closed = true
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }

    deinit { abandon() }

    /// `<folder>/.<name>.partial-`: the temporary files of `path` are this plus a process ID and a sequence
    /// number.
    private static func temporaryPrefix(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-").path
    }

    /// Temporary files left beside `path` by processes that never committed or abandoned them (killed),
    /// newest first.
    package static func leftovers(of path: String) -> [String] {
        let prefix = temporaryPrefix(of: path)
        let folder = URL(fileURLWithPath: prefix).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: prefix).lastPathComponent
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        func modified(_ path: String) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
        }
        return entries.filter { $0.hasPrefix(name) }.map { folder + "/" + $0 }.sorted { modified($0) > modified($1) }
    }

    /// The system's words for a file error ("No space left on device"), not Foundation's wrapper.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(truncatingIfNeeded: underlying.code)))
        }
        return error.localizedDescription
    }
}
