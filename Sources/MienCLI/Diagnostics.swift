import Foundation
import Logging
import Mien

/// The tool's diagnostics, through swift-log: errors and warnings always, progress notes with
/// `--verbose`, all on standard error as `mien: <level>: <message>` so that standard output stays data.
enum Diagnostics {
    static let logger = Logger(label: "mien")

    /// Installs the standard-error handler; call once, first thing.
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { _ in ToolLogHandler(logLevel: verbose ? .info : .warning) }
    }

    /// Logs an error as `mien: error: <input>: <message>`.
    static func report(_ error: any Error) {
        let text = (error as? MienError)?.description ?? "\(error)"
        logger.error("\(text)")
    }
}

/// A swift-log handler writing `mien: <level>: <message>` lines to standard error, each in one write so
/// parallel inputs do not interleave within a line.
struct ToolLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let name =
            switch event.level {
            case .critical, .error: "error"
            case .warning: "warning"
            default: "note"
            }
        Console.error("mien: \(name): \(event.message)\n")
    }
}
