import Foundation
import Mien

/// Where one input's results go: JSON Lines (a file or standard output, flushed per frame), CSV and the
/// summary, each written atomically.
///
/// Receives results from the detector's thread, one at a time.
final class AnalysisSink: DetectorDelegate, @unchecked Sendable {
    // Every member is touched under `lock`: results arrive on the detector's thread, `finish` runs on the
    // main thread after the detector has stopped.
    private let lock = NSLock()
    private let jsonl: AtomicFile?
    private let jsonlToStandardOutput: Bool
    private let csv: AtomicFile?
    private let summaryPath: String?
    private var summary: InputSummary
    private var failure: MienError?
    private let progress: Progress
    private let done = DispatchSemaphore(value: 0)
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(input: String, plan: OutputPlan, expectedFrames: Int?) throws {
        summary = InputSummary(input: input)
        jsonlToStandardOutput = plan.jsonlToStandardOutput
        jsonl = try plan.jsonlPath.map(AtomicFile.init(path:))
        csv = try plan.csvPath.map(AtomicFile.init(path:))
        try csv?.write(ResultTable.headerLine + "\n")
        summaryPath = plan.summaryPath
        progress = Progress(input: input, expectedFrames: expectedFrames)
    }

    /// Records one frame's result.
    func record(_ result: DetectorResult) {
        lock.withLock {
            guard failure == nil else { return }
            do {
                var line = try encoder.encode(result)
                line.append(UInt8(ascii: "\n"))
                if jsonlToStandardOutput { FileHandle.standardOutput.write(line) }
                try jsonl?.write(String(decoding: line, as: UTF8.self))
                for row in ResultTable.lines(for: result) { try csv?.write(row + "\n") }
                summary.add(result)
                progress.advance()
            } catch let error as MienError {
                failure = error
            } catch {
                failure = MienError(.ioFailure, "\(error)")
            }
        }
    }

    func detector(_ detector: Detector, didProcess result: DetectorResult) { record(result) }
    func detectorDidFinishProcessing(_ detector: Detector) { done.signal() }
    func detector(_ detector: Detector, didFail error: MienError) {
        lock.withLock { failure = failure ?? error }
        done.signal()
    }

    /// Waits for the end of a video file, a failure, or `interrupt()`.
    func waitForEnd() { done.wait() }

    /// Ends `waitForEnd()` early (Ctrl-C).
    func interrupt() { done.signal() }

    /// Commits every output (complete, valid files for the frames done) and returns the first failure.
    func finish() -> MienError? {
        lock.withLock {
            progress.finish()
            do {
                try jsonl?.commit()
                try csv?.commit()
                if let summaryPath {
                    let file = try AtomicFile(path: summaryPath)
                    let data = try encoder.encode(summary)
                    try file.write(String(decoding: data, as: UTF8.self) + "\n")
                    try file.commit()
                }
            } catch let error as MienError {
                failure = failure ?? error
            } catch {
                failure = failure ?? MienError(.ioFailure, "\(error)")
            }
            return failure
        }
    }
}

/// Progress on standard error: one updating line on a terminal, a plain line every few seconds otherwise.
final class Progress {
    private let input: String
    private let expectedFrames: Int?
    private let start = ContinuousClock.now
    private var frames = 0
    private var lastReport = ContinuousClock.now
    private let terminal = isatty(STDERR_FILENO) != 0

    /// Seconds between plain log lines when standard error is not a terminal.
    private static let logInterval = 5.0

    init(input: String, expectedFrames: Int?) {
        self.input = input
        self.expectedFrames = expectedFrames
    }

    func advance() {
        frames += 1
        let now = ContinuousClock.now
        let interval = terminal ? 0.2 : Self.logInterval
        guard Self.seconds(now - lastReport) >= interval else { return }
        lastReport = now
        report(final: false)
    }

    func finish() { report(final: true) }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func report(final: Bool) {
        let seconds = max(Self.seconds(ContinuousClock.now - start), 1e-3)
        let rate = Double(frames) / seconds
        var text = "\(input): \(frames)"
        if let expectedFrames, expectedFrames > 0 {
            let left = Double(max(0, expectedFrames - frames)) / max(rate, 1e-3)
            text += "/\(expectedFrames) frames, \(String(format: "%.1f", rate)) frames/s"
            if !final { text += ", ETA \(Int(left.rounded())) s" }
        } else {
            text += " frames, \(String(format: "%.1f", rate)) frames/s"
        }
        if final { text += ", done" }
        let line = terminal ? "\r\u{1B}[K" + text + (final ? "\n" : "") : text + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// The output files of one input.
struct OutputPlan {
    var jsonlPath: String?
    var jsonlToStandardOutput: Bool
    var csvPath: String?
    var summaryPath: String?

    /// Every file this plan writes.
    var files: [String] { [jsonlPath, csvPath, summaryPath].compactMap { $0 } }
}
