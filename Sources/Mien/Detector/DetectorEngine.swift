/// The analysis behind a `Detector`: the locating and measuring stages for the asked-for metrics and the
/// rate cap.
///
/// Its two halves have a lock each, so a file can be analysed as a two-stage pipeline: `locate` for
/// frame n + 1 on one thread while `measure` finishes frame n on another.
final class DetectorEngine: Sendable {
    let options: DetectorOptions
    /// Whether the expression stage runs (for tests: a metric nobody asked for must cost nothing).
    let runsExpressions: Bool
    /// Whether the emotion / appearance stage runs.
    let runsAffect: Bool
    private let firstStage: Locked<FirstStage>
    private let measurer: Locked<FaceMeasurer>

    /// What the first stage runs on a frame the rate cap admits.
    private enum Locating {
        /// Detection, mesh, pose and tracking; the second stage measures the faces.
        case locate(FaceLocator)
        /// Detection alone (`DetectorOptions.detectionOnly`): the frame is finished after it.
        case detect(BlazeFaceDetector)
    }

    /// The first stage's state: what it runs and the rate cap.
    private struct FirstStage {
        let locating: Locating
        /// nil: every frame is processed.
        var cap: RateCap?

        init(locating: Locating, rate: Double?) {
            self.locating = locating
            cap = rate.map { RateCap(rate: $0) }
        }

        /// Whether the rate cap lets a frame at `timestamp` be processed (and records it if so).
        mutating func admits(_ timestamp: Double) -> Bool {
            cap?.admits(timestamp) ?? true
        }
    }

    private init(
        options: DetectorOptions, firstStage: sending FirstStage, measurer: sending FaceMeasurer, runsExpressions: Bool,
        runsAffect: Bool
    ) {
        self.options = options
        self.firstStage = Locked(firstStage)
        self.measurer = Locked(measurer)
        self.runsExpressions = runsExpressions
        self.runsAffect = runsAffect
    }

    /// The analysis with Mien's networks for the metrics `options` asks for.
    /// - Parameters:
    ///   - mode: whether the frames are tracked (`DetectorSource.mode(of:)`).
    ///   - firstFaceId: the first face ID given: 0, or where a resumed run of pictures that stand alone goes on.
    convenience init(
        source: DetectorSource, mode: RunningMode, firstFaceId: Int, options: DetectorOptions,
        models: ModelStore
    ) throws {
        let rate = Self.rate(source: source, options: options)
        if options.detectionOnly {
            self.init(
                options: options,
                firstStage: FirstStage(
                    locating: .detect(try BlazeFaceDetector(options: options.detection, models: models)),
                    rate: rate),
                measurer: FaceMeasurer(expressionStage: nil, affectStage: nil), runsExpressions: false,
                runsAffect: false)
            return
        }
        let expressions = try options.needsExpressions ? ExpressionOptions() : nil
        let (locator, measurer) = try FaceAnalyzer.stages(
            mode: mode, detection: options.detection,
            tracking: try TrackingOptions(), expressions: options.baseline ? expressions : expressions?.withoutBaseline,
            emotions: options.needsEmotions, appearance: options.needsAppearance,
            reidentification: options.reidentification,
            firstFaceId: firstFaceId,
            cuts: try Self.cuts(source: source, options: options), models: models)
        let runsExpressions = measurer.expressions != nil
        let runsAffect = measurer.runsAffectStage
        // Built by one call, so the compiler sees the two stages as one region and would not hand them to two
        // locks; they share nothing mutable (only `HeadPoseEstimator`, a Sendable value), so each is its own.
        nonisolated(unsafe) let locating = FirstStage(locating: .locate(locator), rate: rate)
        nonisolated(unsafe) let measuring = measurer
        self.init(
            options: options, firstStage: locating, measurer: measuring, runsExpressions: runsExpressions,
            runsAffect: runsAffect)
    }

    /// Compiles the networks `options` needs for a stream, ahead of a `Detector` made with them (its start then
    /// loads them without compiling): for a caller with other work to do meanwhile, such as replaying a
    /// resumed input's finished frames.
    static func prepare(options: DetectorOptions, models: ModelStore) {
        guard !options.detectionOnly else { return }
        FaceAnalyzer.prepare(
            detection: options.detection, expressions: options.needsExpressions, emotions: options.needsEmotions,
            appearance: options.needsAppearance, reidentification: options.reidentification != nil, models: models)
    }

    /// The analysis with the caller's face detector and mesher (no model, no pose, expression or affect stage).
    convenience init(
        source: DetectorSource, mode: RunningMode, firstFaceId: Int, options: DetectorOptions,
        stages: DetectorStages
    ) throws {
        let rate = Self.rate(source: source, options: options)
        let (detector, mesher) = try stages.make(options.detection)
        let detection = options.detection
        let locator = FaceLocator(
            mode: mode, tracking: try TrackingOptions(),
            maximumFaces: detection.maximumFaces, detector: detector, mesher: mesher, poses: nil,
            wholePictureFallback: detection.wholePictureFallback,
            firstFaceId: firstFaceId,
            cuts: try Self.cuts(source: source, options: options))
        self.init(
            options: options, firstStage: FirstStage(locating: .locate(locator), rate: rate),
            measurer: FaceMeasurer(expressionStage: nil, affectStage: nil), runsExpressions: false, runsAffect: false)
    }

    /// The shot-cut detector, for sources that look for cuts (`DetectorSource.findsShotCuts`).
    private static func cuts(source: DetectorSource, options: DetectorOptions) throws -> ShotCutDetector? {
        guard source.findsShotCuts, let threshold = options.shotCutThreshold else { return nil }
        return try ShotCutDetector(threshold: threshold)
    }

    /// The rate cap, in frames per second (nil: every frame).
    private static func rate(source: DetectorSource, options: DetectorOptions) -> Double? {
        options.maxProcessRate ?? source.defaultProcessRate
    }

    /// The first stage for `frame`: rate cap, then detection, mesh, pose and tracking.
    func locate(_ frame: Frame, arrival: FrameInbox.Arrival) throws -> StageItem {
        try firstStage.withLock { stage in
            guard stage.admits(frame.timestamp) else {
                return .final(DetectorResult(unprocessed: frame), frame: frame, arrival)
            }
            switch stage.locating {
            case .locate(let locator):
                return .toMeasure(try locator.locate(frame), arrival)
            case .detect(let detector):
                let detections = try detector.detect(in: frame)
                var faces: [Int: FaceResult] = [:]
                for (id, detection) in detections.enumerated() {
                    faces[id] = FaceResult(detection: detection, faceId: id)
                }
                let result = DetectorResult(
                    frameIndex: frame.index, timestamp: frame.timestamp, width: frame.width, height: frame.height,
                    faces: faces)
                return .final(result, frame: frame, arrival)
            }
        }
    }

    /// The second stage: expressions, emotions and appearance, then the result as the detector reports it.
    func measure(_ located: FrameAnalysis) throws -> DetectorResult {
        let analysis = try measurer.withLock { try $0.measure(located) }
        var faces: [Int: FaceResult] = [:]
        let frameSize = FrameSize(width: analysis.width, height: analysis.height)
        for face in analysis.faces { faces[face.faceId] = FaceResult(face, options: options, frameSize: frameSize) }
        return DetectorResult(
            frameIndex: analysis.frameIndex, timestamp: analysis.timestamp, width: analysis.width,
            height: analysis.height, faces: faces, events: analysis.events, shotCut: analysis.shotCut,
            faceCount: analysis.faceCount.map { FaceCount($0, fullFrameDetection: analysis.fullFrameDetection) })
    }

    /// Forgets faces, IDs, baselines and the rate cap's grid.
    ///
    /// Frames already located but not yet measured when this runs are measured with fresh baselines.
    func reset() {
        firstStage.withLock { stage in
            if case .locate(let locator) = stage.locating { locator.reset() }
            stage.cap?.reset()
        }
        measurer.withLock { $0.reset() }
    }
}

extension DetectorEngine {
    /// The first stage's memory of a stream: the locator's and the rate cap's.
    struct LocatingState: Sendable, Codable {
        var locator: FaceLocator.State
        var cap: RateCap?
    }

    /// The first stage's state after the last frame it located; nil when it keeps none to restore (detection
    /// only, or pictures that stand alone).
    func locatingSnapshot() -> LocatingState? {
        firstStage.withLock { stage in
            guard case .locate(let locator) = stage.locating, locator.mode.tracks else { return nil }
            return LocatingState(locator: locator.snapshot, cap: stage.cap)
        }
    }

    /// The second stage's state after the last frame it measured.
    func measuringSnapshot() -> FaceMeasurer.State { measurer.withLock { $0.snapshot } }

    /// Every face new to the stream starts from `baseline` (`RunSettings.neutralStart`).
    func start(from baseline: NeutralBaseline.Carried?) { measurer.withLock { $0.start(from: baseline) } }

    /// The neutral baseline learnt longest among the faces remembered.
    func longestBaseline() -> NeutralBaseline.Carried? { measurer.withLock { $0.longestBaseline } }

    /// Goes on from `snapshot`, taken by an engine with the same settings.
    /// - Throws: `.invalidArgument` when the snapshot's stages are not this engine's.
    func restore(_ snapshot: AnalysisSnapshot) throws {
        try firstStage.withLock { stage in
            guard case .locate(let locator) = stage.locating, locator.mode.tracks,
                (snapshot.locating.cap == nil) == (stage.cap == nil)
            else { throw MienError(.invalidArgument, "the snapshot was taken by another kind of analysis") }
            try locator.restore(snapshot.locating.locator)
            stage.cap = snapshot.locating.cap
        }
        try measurer.withLock { try $0.restore(snapshot.measuring) }
    }
}
