/// Detection, mesh, head pose, tracking and the measuring stages in one object, one frame at a time.
///
/// For code that needs what the stages make before it becomes a `DetectorResult`: the raw evidence behind a
/// mapping, recognition embeddings, one stage's time (MienDev's feature dumps and benchmarks, each saying why at
/// its call), or a loop of your own. Results people use (and `make eval`'s figures for expressions, affect, pose
/// and landmarks) come from a `Detector`, which runs the same two halves (`locator`, `measurer`) on two threads.
///
/// The running mode is fixed at creation: `.image` treats every frame as unrelated (each is
/// detected afresh, IDs count from 0 in each image, no events, no smoothing); `.video` and `.liveStream` track faces
/// across frames of a video, a camera or related images.
///
/// ```swift
/// let analyzer = try FaceAnalyzer(mode: .video, models: ModelStore())
/// let video = try VideoFileSource(path: "talk.mp4")
/// while let frame = try video.nextFrame() {
///     let result = try analyzer.analyze(frame)
///     for face in result.faces { print(face.faceId, face.pose?.yaw ?? .nan) }
/// }
/// ```
/// - Important: Not thread-safe; one stream per analyzer. Tracked (`.video`, `.liveStream`), timestamps must increase.
package final class FaceAnalyzer {

    /// Unrelated pictures or one tracked stream, fixed at creation.
    package let mode: RunningMode
    /// Face mode, most faces and minimum confidence.
    package let detection: DetectionOptions
    /// The tracker's settings.
    package let tracking: TrackingOptions
    /// Options of the expression stage, or nil when it does not run (no blendshapes, expressions or
    /// emoji; the blendshape model is not even loaded).
    package var expressions: ExpressionOptions? { measurer.expressions }
    /// The first half: detection, mesh, pose, tracking, face count.
    package let locator: FaceLocator
    /// The second half: quality, expressions, emotions, appearance.
    package let measurer: FaceMeasurer

    /// Loads the detector, mesh and face-geometry models, the blendshape model when `expressions` is
    /// given (or emotions need it), fer's CNN for `emotions`, Cydral's models for `appearance` and dlib's
    /// recognition network for `reidentification` in streams (checksums verified).
    /// - Parameters:
    ///   - mode: unrelated pictures or one tracked stream, fixed for the analyzer's life.
    ///   - detection: face mode, most faces and confidence (default: `DetectionOptions()`).
    ///   - tracking: the tracker's settings (default: `TrackingOptions()`).
    ///   - expressions: the expression stage's options, or nil (default) for no expressions.
    ///   - emotions: whether emotions, valence and engagement are measured (they bring the expressions).
    ///   - appearance: whether gender, age and glasses are measured.
    ///   - reidentification: faces that come back get their old IDs (`Reidentifier`); streams
    ///     only, ignored for discrete images. nil (default): off.
    ///   - models: where the models are.
    /// - Throws: `MienError` naming a missing or altered model.
    package init(
        mode: RunningMode, detection: DetectionOptions? = nil, tracking: TrackingOptions? = nil,
        expressions: ExpressionOptions? = nil, emotions: Bool = false, appearance: Bool = false,
        reidentification: ReidentificationOptions? = nil, models: ModelStore
    ) throws {
        self.mode = mode
        self.detection = try detection ?? DetectionOptions()
        self.tracking = try tracking ?? TrackingOptions()
        (locator, measurer) = try Self.stages(
            mode: mode, detection: self.detection, tracking: self.tracking, expressions: expressions,
            emotions: emotions, appearance: appearance, reidentification: reidentification, models: models)
    }

    /// Compiles the networks of these stages on all cores (`InferenceCore.prepare`), kept for the process's life:
    /// stages made afterwards load them without compiling.
    static func prepare(
        detection: DetectionOptions, expressions: Bool, emotions: Bool, appearance: Bool, reidentification: Bool,
        models: ModelStore
    ) {
        let networks: [ModelDescriptor] =
            [BlazeFaceDetector.model(for: detection.faceMode), .faceMesh]
            + (expressions ? [.blendshapes] : []) + (emotions ? [.ferEmotion] : [])
            + (appearance ? [.gender, .age] : []) + (reidentification ? [.faceRecognition] : [])
        let meshAlone = !expressions && !emotions && !appearance
        InferenceCore.prepare(
            networks, store: models,
            settings: [.faceMesh: FaceMeshEstimator.inferenceSettings(aloneInPipeline: meshAlone)])
    }

    /// The two halves with Mien's networks, for `FaceAnalyzer` and for the `Detector`, which runs them on
    /// two threads.
    /// - Parameters:
    ///   - firstFaceId: the first face ID of a stream (a resumed run's `ResumePoint.nextFaceId`).
    ///   - cuts: streams: the shot-cut detector that ends every face at a cut (nil: none).
    static func stages(
        mode: RunningMode, detection: DetectionOptions, tracking: TrackingOptions,
        expressions: ExpressionOptions?,
        emotions: Bool, appearance: Bool, reidentification: ReidentificationOptions?, firstFaceId: Int = 0,
        cuts: ShotCutDetector? = nil, models: ModelStore
    ) throws -> (locator: FaceLocator, measurer: FaceMeasurer) {
        // Emotions are fused from the expressions, so they bring the expression stage with them.
        let expressions = try expressions ?? (emotions ? ExpressionOptions() : nil)
        let reidentification = mode.tracks ? reidentification : nil
        // Compiled together on both cores first (OpenVINO compiles each network on one thread), then loaded
        // in pipeline order, so a broken model set reports the first model a frame would need.
        prepare(
            detection: detection, expressions: expressions != nil, emotions: emotions, appearance: appearance,
            reidentification: reidentification != nil, models: models)
        // Without a stage measuring the faces, the mesh has both cores (FaceMeshEstimator's settings).
        let meshAlone = expressions == nil && !emotions && !appearance
        let detector = try BlazeFaceDetector(options: detection, models: models)
        let mesher = try FaceMeshEstimator(models: models, aloneInPipeline: meshAlone)
        let poses = HeadPoseEstimator(model: try CanonicalFaceModel(models: models))
        let locator = FaceLocator(
            mode: mode, tracking: tracking, maximumFaces: detection.maximumFaces, detector: detector,
            mesher: mesher, poses: poses, wholePictureFallback: detection.wholePictureFallback,
            reidentifier: try reidentification.map {
                Reidentifier(
                    options: $0, recognizer: try FaceRecognitionNetwork(models: models), firstFaceId: firstFaceId)
            }, firstFaceId: firstFaceId, cuts: cuts)
        let expressionStage = try expressions.map {
            ExpressionStage(options: $0, blendshapes: try BlendshapeEstimator(models: models), poses: poses)
        }
        let affectStage =
            emotions || appearance
            ? AffectStage(
                emotions: emotions, cnn: emotions ? try EmotionNetwork(models: models) : nil,
                appearance: appearance ? try AppearanceNetworks(models: models) : nil) : nil
        let measurer = FaceMeasurer(
            expressionStage: expressionStage, affectStage: affectStage, retention: reidentification?.window)
        return (locator, measurer)
    }

    /// Builds an analyzer on stages the caller provides: fakes in tests, instrumented or alternative
    /// implementations elsewhere.
    ///
    /// The expression stage runs when `expressions`, `blendshapes` and `geometry` are all given.
    package init(
        mode: RunningMode, detection: DetectionOptions, tracking: TrackingOptions,
        detector: any FaceDetecting,
        mesher: any FaceMeshEstimating, geometry: CanonicalFaceModel?, expressions: ExpressionOptions? = nil,
        blendshapes: (any BlendshapeEstimating)? = nil
    ) {
        self.mode = mode
        self.detection = detection
        self.tracking = tracking
        let poses = geometry.map(HeadPoseEstimator.init(model:))
        locator = FaceLocator(
            mode: mode, tracking: tracking, maximumFaces: detection.maximumFaces, detector: detector, mesher: mesher,
            poses: poses, wholePictureFallback: detection.wholePictureFallback)
        var expressionStage: ExpressionStage?
        if let expressions, let blendshapes, let poses {
            expressionStage = ExpressionStage(options: expressions, blendshapes: blendshapes, poses: poses)
        }
        measurer = FaceMeasurer(expressionStage: expressionStage, affectStage: nil)
    }

    /// Analyses the next frame: `measurer.measure(locator.locate(frame))`.
    /// - Throws: stage errors. Time is not checked here (a `Detector` checks it where frames enter).
    package func analyze(_ frame: Frame) throws -> FrameAnalysis {
        try measurer.measure(locator.locate(frame))
    }

    /// Forgets all faces, IDs, baselines and timestamps (Affdex `reset`).
    package func reset() {
        measurer.reset()
        locator.reset()
    }
}
