/// The analysis behind a `Detector`: a `FaceAnalyzer` configured for the asked-for metrics, the rate cap
/// and the frame numbering.
///
/// Its two halves have a lock each, so a video can be analysed as a two-stage pipeline: `locate` for
/// frame n + 1 on one thread while `measure` finishes frame n on another. `process` runs both for one
/// frame (pictures, pushed frames).
final class DetectorEngine: Sendable {
    let metrics: Set<Metric>
    /// Whether the expression stage runs (for tests: a metric nobody asked for must cost nothing).
    let runsExpressions: Bool
    /// Whether the emotion / appearance stage runs.
    let runsAffect: Bool
    private let front: Locked<Front>
    private let measurer: Locked<FaceMeasurer>
    /// Held for the whole of `process`.
    private let serial = Locked(())

    /// A frame after the first half: located, or skipped by the rate cap (already a result).
    enum Step: Sendable {
        case located(LocatedFrame)
        case skipped(DetectorResult)
    }

    /// The first half's state: the locator, the rate cap's clock and the frame numbering.
    private struct Front {
        let locator: FaceLocator
        let interval: Double?
        let numbersFrames: Bool
        var lastProcessed: Double?
        var nextIndex = 0

        /// Whether the rate cap lets a frame at `timestamp` be processed.
        func admits(_ timestamp: Double) -> Bool {
            guard let interval, let lastProcessed else { return true }
            // A thousandth of the interval absorbs timestamp rounding (30 fps at 5 fps: every 6th frame).
            return timestamp - lastProcessed >= interval * 0.999
        }
    }

    init(source: DetectorSource, options: DetectorOptions, models: ModelStore) throws {
        let mode: FaceAnalyzer.RunningMode = {
            if case .discreteImages = source { return .discreteImages }
            return .stream
        }()
        let expressions = try options.needsExpressions ? ExpressionOptions() : nil
        let analyzer = try FaceAnalyzer(
            mode: mode,
            detection: DetectionOptions(
                faceMode: options.faceMode, maximumFaces: options.maximumFaces,
                wholePictureFallback: options.wholePictureFallback),
            expressions: options.baseline ? expressions : expressions?.withoutBaseline, emotions: options.needsEmotions,
            appearance: options.needsAppearance, models: models)
        metrics = options.metrics
        runsExpressions = analyzer.expressions != nil
        runsAffect = analyzer.runsAffectStage
        // Pictures given one by one are numbered by the detector; streams keep their own indices.
        let numbersFrames: Bool
        switch source {
        case .discreteImages, .continuousImages, .pushedFrames: numbersFrames = true
        default: numbersFrames = false
        }
        front = Locked(
            Front(
                locator: analyzer.locator,
                interval: (options.maxProcessRate ?? source.defaultProcessRate).map { 1 / $0 },
                numbersFrames: numbersFrames))
        measurer = Locked(analyzer.measurer)
    }

    /// The first half for `frame`: numbering, rate cap, then detection, mesh, pose and tracking.
    func locate(_ frame: Frame) throws -> Step {
        try front.withLock { front in
            var frame = frame
            if front.numbersFrames {
                frame.index = front.nextIndex
                front.nextIndex += 1
            }
            guard front.admits(frame.timestamp) else {
                return .skipped(DetectorResult(frameIndex: frame.index, timestamp: frame.timestamp, faces: nil))
            }
            let located = try front.locator.locate(frame)
            front.lastProcessed = frame.timestamp
            return .located(located)
        }
    }

    /// The second half: expressions, emotions and appearance, then the result as the detector reports it.
    func measure(_ step: Step) throws -> DetectorResult {
        let located: LocatedFrame
        switch step {
        case .skipped(let result): return result
        case .located(let frame): located = frame
        }
        let analysis = try measurer.withLock { try $0.measure(located) }
        var faces: [Int: FaceResult] = [:]
        for face in analysis.faces { faces[face.faceId] = FaceResult(face, metrics: metrics) }
        var found: [Int] = []
        var lost: [Int] = []
        for event in analysis.events {
            switch event {
            case .found(let id): found.append(id)
            case .lost(let id): lost.append(id)
            }
        }
        return DetectorResult(
            frameIndex: analysis.frameIndex, timestamp: analysis.timestamp, faces: faces, found: found, lost: lost)
    }

    /// Both halves for one frame, as one step: frames pushed from several threads at once are measured in
    /// the order they were located.
    func process(_ frame: Frame) throws -> DetectorResult {
        try serial.withLock { _ in try measure(locate(frame)) }
    }

    /// Forgets faces, IDs, baselines, the rate cap's clock and the frame numbering.
    ///
    /// Frames already located but not yet measured when this runs are measured with fresh baselines.
    func reset() {
        front.withLock { front in
            front.locator.reset()
            front.lastProcessed = nil
            front.nextIndex = 0
        }
        measurer.withLock { $0.reset() }
    }
}
