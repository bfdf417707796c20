import Foundation
import Logging
import Mien

/// The tool's diagnostics, through swift-log: errors and warnings always, progress notes with
/// `--verbose`, all on standard error as `mien: <level>: <message>` so that standard output stays data.
enum Diagnostics {
    static let logger = Logger(label: "mien")

    /// Installs the standard-error handler; call once, first thing.
    ///
    /// A served study's events (`mien.studies`: consents, starts, completions, refusals, failures; no personal
    /// data) are logged at every level, each line with its time: they are the server's log of fieldwork.
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { label in
            label == "mien.studies"
                ? ToolLogHandler(logLevel: .info, timestamped: true)
                : ToolLogHandler(logLevel: verbose ? .info : .warning)
        }
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
    /// Whether each line starts with the time (UTC, ISO 8601): a server's events.
    var timestamped = false

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
        if timestamped {
            let time = Date().formatted(.iso8601)
            Console.error("mien: \(time) \(name == "note" ? "" : "\(name): ")\(event.message)\n")
        } else {
            Console.error("mien: \(name): \(event.message)\n")
        }
    }
}
