import ArgumentParser
import Dispatch
import Foundation
import Mien
import Synchronization

/// `mien analyze`: every metric of every face in images, folders, videos or a camera, to JSON Lines, CSV
/// and a per-input summary.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyse faces (expressions, emoji, emotions, appearance) and write JSON Lines, CSV and summaries.",
        discussion: """
            Without --output, JSON Lines go to standard output, one frame per line, flushed as each frame is \
            done. With --output DIR, each input gets DIR/<name>.jsonl / .csv (per --format) and \
            DIR/<name>.summary.json, written under temporary names and renamed when complete; Ctrl-C stops \
            cleanly and completes the files for the frames done. --resume skips inputs whose files exist.
            """)

    /// Metric groups for `--metrics`.
    enum MetricGroup: String, CaseIterable, ExpressibleByArgument {
        case all, expressions, emoji, emotions, appearance, none

        var metrics: Set<Metric> {
            switch self {
            case .all: .all
            case .expressions: .allExpressions
            case .emoji: .allEmoji
            case .emotions: .allEmotions
            case .appearance: .allAppearance
            case .none: []
            }
        }
    }

    /// Output formats for `--format`.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case jsonl, csv
    }

    @Argument(help: "Images, folders of images and video files, in any mix.")
    var inputs: [String] = []

    @Option(help: "Read a camera: an index (0 = /dev/video0) or a device path.")
    var camera: String?

    @Option(help: "Stop each input after this many frames (cameras run until Ctrl-C otherwise).")
    var maxFrames: Int?

    @Option(help: "Frames analysed per second at most (default: every frame of files, 5 for a camera).")
    var rate: Double?

    @Option(
        parsing: .upToNextOption,
        help: "Metric groups: all (default), expressions, emoji, emotions, appearance, none.")
    var metrics: [MetricGroup] = [.all]

    @Option(parsing: .upToNextOption, help: "Output formats with --output: jsonl, csv (default: both).")
    var format: [Format] = [.jsonl, .csv]

    @Option(help: "Folder for the output files (created if missing). Without it, JSON Lines go to stdout.")
    var output: String?

    @Flag(help: "Treat the images of a folder as frames of one stream (tracked, one per --interval seconds).")
    var continuous = false

    @Option(help: "Seconds between the images of a --continuous folder.")
    var interval = 1.0

    @Option(
        help:
            "Folder for annotated pictures (<name>.png) and videos (<name>.mp4): boxes coloured by valence, IDs, points, pose axes, emotions."
    )
    var annotate: String?

    @Flag(help: "Skip inputs whose output files are already complete.")
    var resume = false

    @Option(help: "large: faces near the camera; small: small or distant faces.")
    var faceMode: FaceMode = .large

    @Option(help: "Track at most this many faces (1...64).")
    var maxFaces = 5

    func validate() throws {
        if inputs.isEmpty && camera == nil { throw ValidationError("give at least one input, or --camera") }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        if interval <= 0 { throw ValidationError("--interval must be positive") }
        if resume && output == nil { throw ValidationError("--resume needs --output") }
        do {
            _ = try detectorOptions()
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    private func detectorOptions() throws -> DetectorOptions {
        try DetectorOptions(
            maximumFaces: maxFaces, faceMode: faceMode, maxProcessRate: rate,
            metrics: metrics.reduce(into: Set<Metric>()) { $0.formUnion($1.metrics) })
    }

    func run() throws {
        let options = try detectorOptions()
        let models: ModelStore
        do {
            models = try ModelStore()
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.modelProblem
        }
        for folder in [output, annotate].compactMap({ $0 }) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let interruption = Interruption()
        var failed = false
        var names: [String] = inputs
        if let camera { names.append("camera:\(camera)") }
        for name in names {
            if interruption.requested { break }
            let plan = plan(for: name)
            if resume, !plan.files.isEmpty, plan.files.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) {
                FileHandle.standardError.write(Data("\(name): outputs complete, skipped (--resume)\n".utf8))
                continue
            }
            do {
                try analyse(name, plan: plan, options: options, models: models, interruption: interruption)
            } catch let error as MienError where [.modelMissing, .modelAltered, .modelInvalid].contains(error.code) {
                Diagnostics.report(error)
                throw ExitStatus.modelProblem
            } catch {
                Diagnostics.report(error)
                failed = true
            }
        }
        if interruption.requested { throw ExitCode(130) }
        if failed { throw ExitStatus.inputFailed }
    }

    /// Output files of `input` (named after its last path component).
    private func plan(for input: String) -> OutputPlan {
        guard let output else { return OutputPlan(jsonlPath: nil, jsonlToStandardOutput: true) }
        let base = URL(fileURLWithPath: input).lastPathComponent.replacingOccurrences(of: ":", with: "-")
        func path(_ suffix: String) -> String {
            URL(fileURLWithPath: output).appendingPathComponent(base + suffix).path
        }
        return OutputPlan(
            jsonlPath: format.contains(.jsonl) ? path(".jsonl") : nil, jsonlToStandardOutput: false,
            csvPath: format.contains(.csv) ? path(".csv") : nil, summaryPath: path(".summary.json"))
    }

    private func analyse(
        _ name: String, plan: OutputPlan, options: DetectorOptions, models: ModelStore, interruption: Interruption
    ) throws {
        if name.hasPrefix("camera:") {
            let detector = Detector(
                source: .camera(device: String(name.dropFirst(7))), options: options, models: models)
            try runReading(detector, name: name, plan: plan, expected: maxFrames, interruption: interruption)
            return
        }
        let source = try InputSource.open(path: name, imageInterval: continuous ? interval : 0)
        switch source.info.kind {
        case .video where annotate == nil:
            let detector = Detector(source: .videoFile(path: name), options: options, models: models)
            try runReading(
                detector, name: name, plan: plan, expected: source.info.frameCount, interruption: interruption)
        default:
            // Pictures, and videos being annotated (read here, so their pixels can be drawn on), go
            // through `process(_:)`; a video's frames keep their own timestamps.
            let kind = source.info.kind
            let stream = kind == .video || (continuous && kind == .imageFolder)
            let detector = Detector(
                source: kind == .video ? .pushedFrames : (stream ? .continuousImages : .discreteImages),
                options: options, models: models)
            let sink = try AnalysisSink(input: name, plan: plan, expectedFrames: source.info.frameCount)
            detector.delegate = sink
            try detector.start()
            let annotator = try annotate.map { try Annotator(folder: $0, input: name, info: source.info) }
            var itemFailed = false
            source.drain(
                limit: maxFrames ?? .max,
                { frame in
                    guard !interruption.requested else { return }
                    let result = try detector.process(frame)
                    try annotator?.add(frame, result)
                },
                onError: { error in
                    Diagnostics.report(error)
                    itemFailed = true
                })
            detector.stop()
            try annotator?.finish()
            if let failure = sink.finish() { throw failure }
            if itemFailed { throw MienError(.corruptData, "some images could not be read", input: name) }
        }
    }

    /// Cameras and videos: the detector reads on its own thread; wait for the end, Ctrl-C or --max-frames.
    private func runReading(
        _ detector: Detector, name: String, plan: OutputPlan, expected: Int?, interruption: Interruption
    ) throws {
        let sink = try AnalysisSink(input: name, plan: plan, expectedFrames: expected)
        let limit = maxFrames
        let counter = FrameCounter(limit: limit) { sink.interrupt() }
        // The detector holds its delegate weakly; this scope keeps it alive until the detector stops.
        let forwarding = ForwardingDelegate(sink: sink, counter: counter)
        detector.delegate = forwarding
        interruption.onRequest { sink.interrupt() }
        try detector.start()
        withExtendedLifetime(forwarding) {
            sink.waitForEnd()
            detector.stop()
        }
        interruption.onRequest(nil)
        if let failure = sink.finish() { throw failure }
    }
}

/// Writes annotated pictures (one PNG per picture) or an annotated video (every frame, drawn with the
/// faces of the latest processed frame).
private final class Annotator {
    private let folder: String
    private let base: String
    private let info: SourceInfo
    private var writer: VideoWriter?
    private var latest: [Shape] = []
    private var pictures = 0

    init(folder: String, input: String, info: SourceInfo) throws {
        self.folder = folder
        base = URL(fileURLWithPath: input).lastPathComponent
        self.info = info
    }

    func add(_ frame: Frame, _ result: DetectorResult) throws {
        if result.processed { latest = FaceAnnotator.shapes(for: result) }
        let drawn = try frame.drawing(latest)
        if info.kind == .video {
            if writer == nil {
                writer = try VideoWriter(
                    path: path(base + ".mp4"), width: frame.width, height: frame.height,
                    framesPerSecond: info.framesPerSecond ?? 30)
            }
            try writer?.write(drawn)
        } else {
            let name = info.kind == .imageFolder ? "\(base)-\(pictures).png" : base + ".png"
            try drawn.write(toImageFile: path(name))
        }
        pictures += 1
    }

    func finish() throws { writer = nil }

    private func path(_ name: String) -> String { URL(fileURLWithPath: folder).appendingPathComponent(name).path }
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

/// Ctrl-C (SIGINT) and SIGTERM: a flag the loops check and a callback that ends the current wait.
private final class Interruption {
    /// Shared with the signal handlers.
    private final class State: Sendable {
        let value = Mutex<(requested: Bool, callback: (@Sendable () -> Void)?)>((false, nil))
    }
    private let state = State()
    private let sources: [any DispatchSourceSignal]

    init() {
        var sources: [any DispatchSourceSignal] = []
        let state = self.state
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("\nmien: interrupted; completing the output files\n".utf8))
                let callback = state.value.withLock { value -> (@Sendable () -> Void)? in
                    value.requested = true
                    return value.callback
                }
                callback?()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    var requested: Bool { state.value.withLock { $0.requested } }

    /// Sets (or clears) what to call on a signal.
    func onRequest(_ callback: (@Sendable () -> Void)?) { state.value.withLock { $0.callback = callback } }
}
