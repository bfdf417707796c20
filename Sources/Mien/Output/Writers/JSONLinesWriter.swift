public import Foundation
public import MienCore

/// One `DetectorResult` per line as JSON (keys sorted), to a file written atomically or to a stream
/// (standard output, a socket), each line flushed as its frame completes.
///
/// In a file, lines are written unbuffered, so after a kill the temporary file holds every finished frame:
/// it is the checkpoint `--resume` reads back (`ResumeCheckpoint`).
public final class JSONLinesWriter: ResultWriter {
    private let file: AtomicFile?
    private let stream: ((Data) throws -> Void)?
    private let encoder = JSONLinesWriter.makeEncoder()
    /// Whether a failed input leaves its temporary file (every frame written before the failure) for a recovery.
    private let keepsCheckpoint: Bool

    /// The encoder every JSON form of a result uses: sorted keys, slashes unescaped.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Writes to `path`, under a temporary name until the input finishes.
    /// - Throws: `.ioFailure` naming `path` when it cannot be created.
    public init(path: String) throws {
        file = try AtomicFile(path: path)
        stream = nil
        keepsCheckpoint = false
    }

    /// Writes to `path` as `init(path:)` does; when `keepsCheckpoint`, a failed input (a full disk) leaves its
    /// temporary file instead of deleting it, so what was measured can be recovered
    /// (`CollectionFolder.recover`).
    package init(path: String, keepsCheckpoint: Bool) throws {
        file = try AtomicFile(path: path)
        stream = nil
        self.keepsCheckpoint = keepsCheckpoint
    }

    /// Hands every line (with its line break) to `stream`, which throws when it cannot take it.
    public init(stream: @escaping (Data) throws -> Void) {
        file = nil
        self.stream = stream
        keepsCheckpoint = false
    }

    /// The JSON line of `result`, with its line break.
    public func line(_ result: DetectorResult) throws -> Data {
        var line = try encoder.encode(result)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    public func write(_ result: DetectorResult, frame: Frame?) throws {
        let line = try line(result)
        try stream?(line)
        try file?.write(line)
    }

    public func finish(_ end: InputEnd) throws { try file?.commit() }

    public func fail(_ error: MienError) {
        if keepsCheckpoint { file?.release() } else { file?.abandon() }
    }
}
