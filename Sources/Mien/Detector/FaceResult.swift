/// One face in one processed frame, as a `Detector` reports it: only the metrics that were asked for are
/// present; the rest are nil (and absent from JSON).
///
/// Coordinates are frame pixels (top-left origin), angles degrees, scores 0...100 (valence −100...100).
public struct FaceResult: Sendable, Equatable {
    /// Stable while the face stays tracked (Affdex `faceId`).
    public var faceId: Int
    /// The box around the face, frame pixels.
    public var faceBounds: Rect
    /// How sure the face is there, 0...1: the mesh's presence score while tracked, the detector's score
    /// when first found or with `detectionOnly`.
    public var confidence: Double
    /// Affdex's 34 facial points in Affdex order (`AffdexFacePoints`), frame pixels; nil with
    /// `detectionOnly`.
    public var facePoints: [Point]?
    /// The face detector's six keypoints by name (`FaceDetection.Keypoint.name`), frame pixels; only with
    /// `detectionOnly`.
    public var keypoints: [String: Point]?
    /// The 478 mesh points (x, y frame pixels; z relative depth in pixels, larger = farther), only with
    /// `DetectorOptions.landmarks`.
    public var mesh: [Point3D]?
    /// The 68 points of the iBUG 300-W / dlib layout (`Ibug68Points`), frame pixels, only with
    /// `DetectorOptions.landmarks`.
    public var points68: [Point]?
    /// MediaPipe's 52 blendshape scores (0...1) by name, only with `DetectorOptions.blendshapes`.
    public var blendshapes: [String: Double]?
    /// Yaw, pitch, roll (degrees) and interocular distance (pixels).
    public var orientation: HeadPose?
    /// Brightness and size of the face.
    public var quality: FaceQuality?
    /// Why the expressions, emoji and emotions may be wrong in this frame (empty when trusted).
    public var flags: [QualityFlag]
    /// The expressions asked for (with their left/right sides).
    public var expressions: Expressions?
    /// The emoji asked for; `dominantEmoji` is chosen among them.
    public var emoji: EmojiScores?
    /// The emotions asked for.
    public var emotions: Scores<Emotion>?
    /// How positive the expression is, -100...100 (nil unless `.valence` was asked for).
    public var valence: Double? {
        get { measures["valence"] }
        set { measures["valence"] = newValue }
    }
    /// How expressive the face is, 0...100 (nil unless `.engagement` was asked for).
    public var engagement: Double? {
        get { measures["engagement"] }
        set { measures["engagement"] = newValue }
    }
    /// Perceived gender, when asked for.
    public var gender: Gender?
    /// Affdex's age bracket, when asked for.
    public var age: AgeBracket?
    /// Apparent age in years, with `age`.
    public var ageYears: Double?
    /// Whether the face wears glasses, when asked for.
    public var glasses: Bool?
    /// Blinks per minute over the last `BlinkOptions.rateWindow` seconds (the time seen, while shorter), in
    /// streams with eye closure on and blinks watched; nil for the first `BlinkOptions.rateWarmUp` seconds
    /// of a face.
    public var blinkRate: Double? {
        get { measures["blinkRate"] }
        set { measures["blinkRate"] = newValue }
    }
    /// Where the person looks (degrees), when asked for and measurable (eyes open, face large enough and
    /// not turned away).
    public var gaze: Gaze?
    /// The one store of the metrics whose catalog entry keeps a single number (`MetricDescriptor.stored`), by
    /// name: valence, engagement, blinks per minute, the metrics the catalog derives from the others
    /// (`lookingAtCamera`) and those an entry measures itself (`lipTighten`).
    ///
    /// In JSON each is a key of the face. A metric that is off or could not be measured has no key.
    public internal(set) var measures: [String: Double] = [:]

    /// The value of the stored metric `name` (`MetricCatalog`), nil when absent.
    public subscript(measure name: String) -> Double? { measures[name] }

    /// The parts of `face` that `options` ask for, in a frame of `frameSize` pixels (for the derived metrics).
    init(_ face: TrackedFace, options: DetectorOptions, frameSize: FrameSize) {
        let metrics = options.metrics
        faceId = face.faceId
        faceBounds = face.bounds
        confidence = face.confidence
        facePoints = AffdexFacePoints.points(of: face.mesh)
        if options.landmarks {
            mesh = face.mesh.points
            points68 = Ibug68Points.points(of: face.mesh)
        }
        if options.blendshapes, let shapes = face.blendshapes {
            blendshapes = Dictionary(uniqueKeysWithValues: zip(Blendshapes.names, shapes.scores))
        }
        orientation = face.pose
        quality = face.quality
        flags = face.flags
        var expressionKeys = Set<FacialExpression>()
        var emojiKeys = Set<Emoji>()
        var emotionKeys = Set<Emotion>()
        for metric in metrics {
            switch metric {
            case .expression(let e): expressionKeys.insert(e)
            case .emoji(let e): emojiKeys.insert(e)
            case .emotion(let e): emotionKeys.insert(e)
            default: break
            }
        }
        expressions = expressionKeys.isEmpty ? nil : face.expressions?.keeping(expressionKeys)
        emoji = emojiKeys.isEmpty ? nil : face.emoji.map { EmojiScores(scores: $0.scores.keeping(emojiKeys)) }
        emotions = emotionKeys.isEmpty ? nil : face.emotions?.scores.keeping(emotionKeys)
        valence = metrics.contains(.valence) ? face.emotions?.valence : nil
        engagement = metrics.contains(.engagement) ? face.emotions?.engagement : nil
        gender = metrics.contains(.gender) ? face.appearance?.gender : nil
        age = metrics.contains(.age) ? face.appearance?.ageBracket : nil
        ageYears = metrics.contains(.age) ? face.appearance?.age : nil
        glasses = metrics.contains(.glasses) ? face.appearance?.glasses : nil
        gaze = metrics.contains(.gaze) ? face.gaze : nil
        let measured = MeasuredFace(face)
        for entry in MetricCatalog.measuredEntries where entry.metric.map(metrics.contains) ?? false {
            measures[entry.name] = entry.measure?(measured)
        }
        for entry in MetricCatalog.derivedEntries where entry.needs.isSubset(of: metrics) {
            measures[entry.name] = entry.derive?(self, frameSize, options)
        }
    }

    /// A face the detector alone found (`detectionOnly`): numbered by confidence within the frame.
    init(detection: FaceDetection, faceId: Int) {
        self.faceId = faceId
        faceBounds = detection.bounds
        confidence = detection.confidence
        keypoints = Dictionary(
            uniqueKeysWithValues: FaceDetection.Keypoint.allCases.map { ($0.name, detection[$0]) })
        flags = []
    }
}
