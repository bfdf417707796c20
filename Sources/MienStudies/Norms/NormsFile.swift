import Foundation
import Mien

/// A norms store in a file (the default of `mien norms` and `mien study --norms`): the `NormSet` as JSON.
///
/// A change is made under an exclusive lock on `FILE.lock` (two `mien norms add` at once both land), written to a
/// temporary file, flushed and renamed into place (a crash leaves the old store or the new one, never half of one).
package struct NormsFile: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// The store; an empty one when the file does not exist yet.
    /// - Throws: what `NormSet.decode` throws, `.unreadable` when the file cannot be read.
    package func read() throws -> NormSet {
        guard FileManager.default.fileExists(atPath: path) else { return NormSet() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MienError(.unreadable, "cannot be read", input: path)
        }
        return try NormSet.decode(data, source: path)
    }

    /// Runs `body` on the store under the file's lock and writes what it leaves (unless it throws: then nothing
    /// changes).
    /// - Throws: what `body` throws; `.ioFailure` naming the file when it cannot be locked or written.
    package func transact<Result>(_ body: (inout NormSet) throws -> Result) throws -> Result {
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw MienError(
                .ioFailure, "cannot open the store's lock file (is the folder there and writable?)", input: lockPath,
                cause: String(cString: strerror(errno)))
        }
        // Closing the descriptor releases the lock.
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw MienError(
                .ioFailure, "cannot lock the norms store", input: lockPath, cause: String(cString: strerror(errno)))
        }
        var set = try read()
        let result = try body(&set)
        let file = try AtomicFile(path: path)
        do {
            try file.write(try set.encoded())
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
        return result
    }
}
