import ArgumentParser
import Foundation
import Mien
import MienStudies

/// `mien`: reads faces in images, videos and camera streams.
///
/// The commands that analyse (`analyze`, `detect`, `study`) and those that wait on a database are
/// `AsyncParsableCommand`s: their inputs are `Detector.Run`s awaited on Swift's concurrency, their blocking file
/// work goes through `BlockingWork`. The others are plain commands run on the main thread.
@main
struct MienCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mien",
        abstract: "Reads faces in images, videos and camera streams, the way Affectiva's Affdex SDK did.",
        discussion: """
            Exit status: 0 when every input was read, 1 when at least one input (or frame) failed while \
            the others were still processed (merge: missing or failed), 2 when merge refuses to combine \
            shards, 3 when Mien's models are missing or altered, 64 for a usage error.
            """,
        version: MienVersion.string,
        subcommands: [
            Analyze.self, Detect.self, Frames.self, Merge.self, MetricsCommand.self, Models.self, Serve.self,
            NormsCommand.self, StudyGroup.self,
        ]
    )

    static func main() async {
        // swift-log is set up before parsing so that every subcommand's diagnostics go to standard error;
        // `--verbose` (analyze) adds progress notes.
        Diagnostics.bootstrap(verbose: CommandLine.arguments.contains("--verbose"))
        // A closed pipe (`mien analyze ... | head`) becomes a write error naming standard output, reported
        // like any other, instead of killing the process before it can complete its output files.
        signal(SIGPIPE, SIG_IGN)
        // Bounded memory over many inputs (see ProcessTuning).
        ProcessTuning.limitMallocArenas()
        let status: Int32
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            status = 0
        } catch {
            // As swift-argument-parser's own exit: help and version to standard output, errors to standard error.
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                let text = message.hasSuffix("\n") ? message : message + "\n"
                if code == .success { try? Console.output(Data(text.utf8)) } else { Console.error(text) }
            }
            status = code.rawValue
        }
        // End without running C++ static destructors: OpenVINO's and oneTBB's worker threads may still be
        // winding down, and a destructor racing them was seen to abort an otherwise finished run (`free():
        // double free` while the main thread was in GDCM's dictionary destructor, which Debian's imgcodecs
        // loads through GDAL). Every output is already committed and standard streams are flushed here.
        fflush(nil)  // every C stream
        _exit(status)
    }
}

/// Exit statuses the tool documents.
enum ExitStatus {
    /// Some input failed; the others produced results.
    static let inputFailed = ExitCode(1)
    /// `mien merge`: the shards' manifests cannot be combined (or there are none); nothing was written.
    static let refused = ExitCode(2)
    /// Models missing, altered or unloadable: nothing could run.
    static let modelProblem = ExitCode(3)
}
