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
    private let progress: ProgressBoard
    private let progressToken: Int
    private var report: InputReport?
    private let input: String
    private let done = DispatchSemaphore(value: 0)
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// - Parameters:
    ///   - report: whether to gather what the HTML report needs (`finish` returns it).
    ///   - checkpoint: frames a killed run finished (`--resume`): written first, and later faces renumbered
    ///     after them.
    init(
        input: String, plan: OutputPlan, expectedFrames: Int?, progress: ProgressBoard, report: Bool,
        checkpoint: ResumeCheckpoint? = nil
    ) throws {
        self.input = input
        summary = InputSummary(input: input)
        self.report = report ? InputReport(input: input) : nil
        jsonlToStandardOutput = plan.jsonlToStandardOutput
        jsonl = try plan.jsonlPath.map(AtomicFile.init(path:))
        csv = try plan.csvPath.map(AtomicFile.init(path:))
        try csv?.write(ResultTable.headerLine + "\n")
        summaryPath = plan.summaryPath
        self.progress = progress
        progressToken = progress.begin(input, expectedFrames: expectedFrames)
        if let checkpoint {
            for result in checkpoint.results { try write(result, frame: nil) }
            idOffset = FaceIdOffset(offset: checkpoint.nextFaceId, pendingLost: checkpoint.openFaces)
            checkpoint.removeLeftovers()
        }
    }

    private var idOffset: FaceIdOffset?

    /// Writes one result to every output (under `lock`, or before the sink is shared).
    private func write(_ result: DetectorResult, frame: Frame?) throws {
        var line = try encoder.encode(AnalysisLine(input: input, result: result))
        line.append(UInt8(ascii: "\n"))
        if jsonlToStandardOutput { try Console.output(line) }
        try jsonl?.write(String(decoding: line, as: UTF8.self))
        for row in ResultTable.lines(for: result) { try csv?.write(row + "\n") }
        // The report keeps its own summary; adding to both would compute every statistic twice.
        if report == nil { summary.add(result) }
        report?.add(result, frame: frame)
        progress.advance(progressToken)
    }

    /// Records one frame's result; `frame` (its pixels, when the caller has them) gives the report its
    /// thumbnails.
    func record(_ result: DetectorResult, frame: Frame? = nil) {
        lock.withLock {
            guard failure == nil else { return }
            do {
                let renumbered = idOffset?.apply(result) ?? result
                try write(renumbered, frame: frame)
            } catch let error as MienError {
                failure = error
                outputBroken = true
            } catch {
                failure = MienError(.ioFailure, "\(error)")
                outputBroken = true
            }
            // An output that cannot be written ends the input now rather than after the whole video.
            if failure != nil { done.signal() }
        }
    }

    func detector(_ detector: Detector, didProcess result: DetectorResult) { record(result) }
    func detectorDidFinishProcessing(_ detector: Detector) { done.signal() }
    func detector(_ detector: Detector, didFail error: MienError) {
        lock.withLock { failure = failure ?? error }
        done.signal()
    }

    /// Set when an output could not be written (disk full, pipe closed): its files may end mid-line, so
    /// they are deleted rather than committed.
    private var outputBroken = false

    /// Whether writing has failed (the input should stop).
    var hasFailed: Bool { lock.withLock { failure != nil } }

    /// Waits for the end of a video file, a failure, or `interrupt()`.
    func waitForEnd() { done.wait() }

    /// Ends `waitForEnd()` early (Ctrl-C).
    func interrupt() { done.signal() }

    /// Deletes the temporary outputs (nothing was analysed: the input could not even start).
    func abandon() {
        lock.withLock {
            progress.drop(progressToken)
            jsonl?.abandon()
            csv?.abandon()
        }
    }

    /// Commits every output (complete, valid files for the frames done, also after Ctrl-C or a damaged
    /// input), or deletes them all when writing them failed; returns the first failure and
    /// the report's part for this input.
    func finish() -> (failure: MienError?, report: InputReport?) {
        lock.withLock {
            progress.finish(progressToken)
            if outputBroken {
                // A file cut short by a write error is never presented as complete.
                jsonl?.abandon()
                csv?.abandon()
                report?.problem = failure?.description
                return (failure, report)
            }
            do {
                try jsonl?.commit()
                try csv?.commit()
                if let summaryPath {
                    let file = try AtomicFile(path: summaryPath)
                    let data = try encoder.encode(report?.summary ?? summary)
                    try file.write(String(decoding: data, as: UTF8.self) + "\n")
                    try file.commit()
                }
            } catch let error as MienError {
                failure = failure ?? error
            } catch {
                failure = failure ?? MienError(.ioFailure, "\(error)")
            }
            report?.problem = failure?.description
            return (failure, report)
        }
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

/// One JSON Lines record of `mien analyze`: the input's name, then the `DetectorResult`'s keys.
struct AnalysisLine: Encodable {
    var input: String
    var result: DetectorResult

    private enum CodingKeys: String, CodingKey { case input }

    func encode(to encoder: any Encoder) throws {
        try result.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(input, forKey: .input)
    }
}
