import Foundation
import Logging
import Mien
import Synchronization

/// How `mien analyze` treats every input of a run: the settings, shared read-only by parallel jobs.
struct InputJob: Sendable {
    var options: DetectorOptions
    var models: ModelStore
    /// Folder of the output files; nil = JSON Lines to standard output.
    var outputFolder: String?
    var formats: Set<Analyze.Format>
    var annotateTarget: String?
    var report: Bool
    var maxFrames: Int?
    /// `--resume`: continue an input a killed run left incomplete after its last finished frame.
    var resume: Bool
    var continuous: Bool
    var interval: Double
    var interruption: Interruption
    var progress: ProgressBoard

    /// Output files of `input` (named after its last path component).
    func plan(for input: String) -> OutputPlan {
        guard let outputFolder else { return OutputPlan(jsonlPath: nil, jsonlToStandardOutput: true) }
        let base = URL(fileURLWithPath: input).lastPathComponent.replacingOccurrences(of: ":", with: "-")
        func path(_ suffix: String) -> String {
            URL(fileURLWithPath: outputFolder).appendingPathComponent(base + suffix).path
        }
        return OutputPlan(
            jsonlPath: formats.contains(.jsonl) ? path(".jsonl") : nil, jsonlToStandardOutput: false,
            csvPath: formats.contains(.csv) ? path(".csv") : nil, summaryPath: path(".summary.json"))
    }

    /// Analyses one input (a file, folder or "camera:N") into its outputs.
    /// - Returns: the input's part of the HTML report (with `problem` set when it stopped early), when
    ///   `report` is on.
    /// - Throws: what stopped the input; the outputs hold the frames done before it.
    func run(_ name: String) throws -> InputReport? {
        let plan = plan(for: name)
        // A checkpoint is only used where frames can be found again by index: not for cameras, and not when
        // annotating (the annotated video would lack the frames before the resume point).
        let found = resume ? ResumeCheckpoint.load(plan) : nil
        let checkpoint = name.hasPrefix("camera:") || annotateTarget != nil ? nil : found
        if found != nil && checkpoint == nil { found?.removeLeftovers() }
        if let last = checkpoint?.lastFrameIndex {
            Diagnostics.logger.warning("\(name): resuming after frame \(last) (--resume)")
        }
        if name.hasPrefix("camera:") {
            let detector = Detector(
                source: .camera(device: String(name.dropFirst(7))), options: options, models: models)
            return try runReading(detector, name: name, plan: plan, expected: maxFrames)
        }
        let source = try InputSource.open(path: name, imageInterval: continuous ? interval : 0)
        let kind = source.info.kind
        // Videos are read by the detector on its own threads, unless their pixels are needed here (to
        // draw on, or for the report's thumbnails).
        if kind == .video && annotateTarget == nil && !report && checkpoint == nil {
            let detector = Detector(source: .videoFile(path: name), options: options, models: models)
            return try runReading(detector, name: name, plan: plan, expected: source.info.frameCount)
        }
        // Pictures, and videos read here, go through `process(_:)`; a video's frames keep their timestamps.
        let stream = kind == .video || (continuous && kind == .imageFolder)
        let detector = Detector(
            source: kind == .video ? .pushedFrames : (stream ? .continuousImages : .discreteImages),
            options: options, models: models)
        let annotator = try annotateTarget.map { try Annotator(target: $0, input: name, info: source.info) }
        let sink = try AnalysisSink(
            input: name, plan: plan, expectedFrames: source.info.frameCount, progress: progress, report: report,
            checkpoint: checkpoint)
        let resumeAfter = checkpoint?.lastFrameIndex ?? -1
        do {
            try detector.start()
        } catch {
            sink.abandon()
            throw error
        }
        var itemFailed = false
        source.drain(
            limit: maxFrames ?? .max, while: { !interruption.requested && !sink.hasFailed },
            { frame in
                guard frame.index > resumeAfter else { return }
                var result = try detector.process(frame)
                // The detector numbers pushed frames itself; the source's index survives a bad image in a
                // folder and a resume.
                result.frameIndex = frame.index
                sink.record(result, frame: frame)
                try annotator?.add(frame, result)
            },
            onError: { error in
                Diagnostics.report(error)
                itemFailed = true
            })
        detector.stop()
        try annotator?.finish()
        var (failure, part) = sink.finish()
        if failure == nil && itemFailed {
            failure = MienError(.corruptData, "some images could not be read", input: name)
        }
        if interruption.requested, part?.problem == nil { part?.problem = "interrupted" }
        if let failure {
            part?.problem = failure.description
            throw InputFailure(error: failure, report: part)
        }
        return part
    }

    /// Cameras and videos: the detector reads on its own thread; wait for the end, Ctrl-C or --max-frames.
    private func runReading(_ detector: Detector, name: String, plan: OutputPlan, expected: Int?) throws
        -> InputReport?
    {
        let sink = try AnalysisSink(
            input: name, plan: plan, expectedFrames: expected, progress: progress, report: report)
        let counter = FrameCounter(limit: maxFrames) { sink.interrupt() }
        // The detector holds its delegate weakly; this scope keeps it alive until the detector stops.
        let forwarding = ForwardingDelegate(sink: sink, counter: counter)
        detector.delegate = forwarding
        let token = interruption.onRequest { sink.interrupt() }
        defer { interruption.remove(token) }
        do {
            try detector.start()
        } catch {
            sink.abandon()
            throw error
        }
        withExtendedLifetime(forwarding) {
            sink.waitForEnd()
            detector.stop()
        }
        var (failure, part) = sink.finish()
        if interruption.requested, part?.problem == nil { part?.problem = "interrupted" }
        if let failure { throw InputFailure(error: failure, report: part) }
        return part
    }
}

/// An input that stopped with `error`, carrying the report of the frames it did.
struct InputFailure: Error {
    var error: MienError
    var report: InputReport?
}

/// Passes results to the sink and ends the wait after `--max-frames`.
private final class ForwardingDelegate: DetectorDelegate {
    let sink: AnalysisSink
    let counter: FrameCounter
    init(sink: AnalysisSink, counter: FrameCounter) {
        self.sink = sink
        self.counter = counter
    }
    func detector(_ detector: Detector, didProcess result: DetectorResult) {
        guard counter.admit() else { return }
        sink.record(result)
    }
    func detectorDidFinishProcessing(_ detector: Detector) { sink.detectorDidFinishProcessing(detector) }
    func detector(_ detector: Detector, didFail error: MienError) { sink.detector(detector, didFail: error) }
}

/// Counts frames up to a limit and calls `reached` once when it is hit.
private final class FrameCounter: Sendable {
    private let count = Mutex(0)
    private let limit: Int?
    private let reached: @Sendable () -> Void
    init(limit: Int?, reached: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.reached = reached
    }
    /// Whether one more frame is within the limit.
    func admit() -> Bool {
        guard let limit else { return true }
        let n = count.withLock { value -> Int in
            value += 1
            return value
        }
        if n == limit { reached() }
        return n <= limit
    }
}
