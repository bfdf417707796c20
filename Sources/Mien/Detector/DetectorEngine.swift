/// The analysis behind a `Detector`: a `FaceAnalyzer` configured for the asked-for metrics, the rate cap
/// and the frame numbering.
///
/// Lives inside the detector's lock; never shared.
final class DetectorEngine {
    let analyzer: FaceAnalyzer
    let metrics: Set<Metric>
    let interval: Double?
    let numbersFrames: Bool
    private var lastProcessed: Double?
    private var nextIndex = 0

    init(source: DetectorSource, options: DetectorOptions, models: ModelStore) throws {
        let mode: FaceAnalyzer.RunningMode = {
            if case .discreteImages = source { return .discreteImages }
            return .stream
        }()
        let expressions = try options.needsExpressions ? ExpressionOptions() : nil
        analyzer = try FaceAnalyzer(
            mode: mode, detection: DetectionOptions(faceMode: options.faceMode, maximumFaces: options.maximumFaces),
            expressions: options.baseline ? expressions : expressions?.withoutBaseline, emotions: options.needsEmotions,
            appearance: options.needsAppearance, models: models)
        metrics = options.metrics
        interval = (options.maxProcessRate ?? source.defaultProcessRate).map { 1 / $0 }
        // Pictures given one by one are numbered by the detector; streams keep their own indices.
        switch source {
        case .discreteImages, .continuousImages, .pushedFrames: numbersFrames = true
        default: numbersFrames = false
        }
    }

    /// Whether the rate cap lets a frame at `timestamp` be processed.
    func admits(_ timestamp: Double) -> Bool {
        guard let interval, let lastProcessed else { return true }
        // A thousandth of the interval absorbs timestamp rounding (30 fps at 5 fps: every 6th frame).
        return timestamp - lastProcessed >= interval * 0.999
    }

    /// The result of `frame`: analysed, or reported unprocessed when the rate cap skips it.
    func process(_ frame: Frame) throws -> DetectorResult {
        var frame = frame
        if numbersFrames {
            frame.index = nextIndex
            nextIndex += 1
        }
        guard admits(frame.timestamp) else { return unprocessed(frame) }
        let analysis = try analyzer.analyze(frame)
        lastProcessed = frame.timestamp
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
            frameIndex: frame.index, timestamp: frame.timestamp, faces: faces, found: found, lost: lost)
    }

    /// The report of a frame that was not analysed.
    func unprocessed(_ frame: Frame) -> DetectorResult {
        DetectorResult(frameIndex: frame.index, timestamp: frame.timestamp, faces: nil)
    }

    /// Forgets faces, IDs, baselines, the rate cap's clock and the frame numbering.
    func reset() {
        analyzer.reset()
        lastProcessed = nil
        nextIndex = 0
    }
}
