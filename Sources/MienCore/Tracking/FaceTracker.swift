/// Follows faces through a stream of frames: the mesh of each tracked face gives the region to look
/// at in the next frame, and the detector runs only to find faces that are not tracked yet.
///
/// Per frame:
/// 1. Every tracked face is re-measured in the region its previous mesh defines. A face whose mesh
///    presence falls below `minimumPresence` is lost.
/// 2. **Association for crossing faces.** Each track follows its own region, so two faces that pass
///    each other keep their IDs as long as both stay visible. When one hides the other, both regions
///    lock onto the visible face; two tracks whose mesh boxes overlap by more than `duplicateOverlap`
///    are one face, and the *younger* track (higher ID) is dropped, so the longer-lived ID survives
///    and the hidden face gets a new ID when it reappears.
/// 3. The detector runs when no face is tracked, when a face was lost on this frame, or when
///    `detectionInterval` seconds have passed since it last ran, and only while fewer than
///    `maximumFaces` are tracked. A detection overlapping a tracked face (IoU > `detectionOverlap`, or
///    its centre inside the face's box) is that face; any other one whose mesh passes the presence
///    threshold becomes a new face with the next ID, measured again (up to three times) in the crop its own
///    mesh gives, so that its first frame reads as the frames after it do (issue 95: from the detector's crop,
///    a still face's first second drifted up to 20 points as the smoothing caught up).
/// 4. Points are smoothed per coordinate by a One-Euro filter whose speed is measured in face sizes
///    per second (the mean of the mesh box's width and height), as MediaPipe does, so the same
///    parameters suit near and far faces.
///
/// - Important: Not thread-safe; one stream per tracker. Timestamps must increase.
package final class FaceTracker {
    package let options: TrackingOptions
    package let maximumFaces: Int
    private let detector: any FaceDetecting
    private let mesher: any FaceMeshEstimating
    private let poseEstimator: HeadPoseEstimator?
    private var state: State

    /// Whether the detector ran on the last processed frame (EnableX's `fullFrameDetection`).
    package var detectorRanOnLastFrame: Bool { state.detectorRanOnLastFrame }

    /// What the tracker remembers between frames: all a resumed run needs to go on as if never stopped
    /// (`snapshot`, `restore(_:)`).
    package struct State: Sendable, Codable, Equatable {
        fileprivate var tracks: [Track] = []
        fileprivate var ids: FaceIdAllocator
        fileprivate var lastDetectionTime: Double?
        fileprivate var detectorRanOnLastFrame = false
    }

    /// A followed face between frames: where to look next and its smoothing state.
    fileprivate struct Track: Sendable, Codable, Equatable {
        let faceId: Int
        var region: FaceRegion
        var filters: [OneEuroFilter]
    }

    /// The state after the last frame.
    package var snapshot: State { state }

    /// Goes on from `snapshot` (taken by a tracker of the same options).
    package func restore(_ snapshot: State) { state = snapshot }

    /// - Parameter firstFaceId: the first ID handed out (a resumed run's `ResumePoint.nextFaceId`).
    package init(
        options: TrackingOptions, maximumFaces: Int, detector: any FaceDetecting, mesher: any FaceMeshEstimating,
        poseEstimator: HeadPoseEstimator?, firstFaceId: Int = 0
    ) {
        state = State(ids: FaceIdAllocator(startingAt: firstFaceId))
        self.options = options
        self.maximumFaces = maximumFaces
        self.detector = detector
        self.mesher = mesher
        self.poseEstimator = poseEstimator
    }

    /// Forgets every face and starts IDs from `firstFaceId` again (Affdex `reset`).
    package func reset() {
        state.tracks.removeAll()
        state.ids.reset()
        state.lastDetectionTime = nil
    }

    /// Analyses the next frame of the stream.
    /// - Returns: the faces tracked after this frame (ordered by ID) and what changed.
    /// - Parameter afterCut: a shot cut comes before `frame`: every tracked face is lost, and the faces of
    ///   the new shot are found afresh (a face at the same place is another person until shown otherwise).
    package func update(_ frame: Frame, afterCut: Bool = false) throws -> (faces: [TrackedFace], events: [FaceEvent]) {
        var events: [FaceEvent] = []
        var lostThisFrame = false
        if afterCut {
            events = state.tracks.map { .lost(faceId: $0.faceId) }
            lostThisFrame = !state.tracks.isEmpty
            state.tracks.removeAll()
        }

        // 1. Follow every tracked face into this frame.
        var kept: [(track: Track, face: TrackedFace)] = []
        let meshes = try mesher.meshes(in: frame, regions: state.tracks.map(\.region))
        for (track, mesh) in zip(state.tracks, meshes) {
            guard mesh.presence >= options.minimumPresence else {
                events.append(.lost(faceId: track.faceId))
                lostThisFrame = true
                continue
            }
            kept.append(
                measured(
                    track.faceId, filters: track.filters, mesh: mesh, at: frame.timestamp, confidence: mesh.presence))
        }

        // 2. Two tracks on one face: keep the older ID.
        kept.sort { $0.track.faceId < $1.track.faceId }
        var unique: [(track: Track, face: TrackedFace)] = []
        for entry in kept {
            if unique.contains(where: { $0.face.bounds.iou(entry.face.bounds) > options.duplicateOverlap }) {
                events.append(.lost(faceId: entry.track.faceId))
                lostThisFrame = true
            } else {
                unique.append(entry)
            }
        }
        state.tracks = unique.map(\.track)

        // 3. Look for new faces when needed.
        let due = state.lastDetectionTime.map { frame.timestamp - $0 >= options.detectionInterval } ?? true
        state.detectorRanOnLastFrame = unique.count < maximumFaces && (unique.isEmpty || lostThisFrame || due)
        if state.detectorRanOnLastFrame {
            state.lastDetectionTime = frame.timestamp
            for detection in try detector.detect(in: frame) where unique.count < maximumFaces {
                let known = unique.contains {
                    $0.face.bounds.iou(detection.bounds) > options.detectionOverlap
                        || $0.face.bounds.contains(detection.bounds.center)
                }
                if known { continue }
                let first = try mesher.mesh(in: frame, region: FaceRegion(detection: detection))
                guard first.presence >= options.minimumPresence else { continue }
                // Measured again in the crop its own mesh gives, as every later frame is (and `analyseStill`
                // does), until that crop has settled: from the detector's coarser crop, a new face's first points
                // differ, and the smoothing carried that into its first second (issue 95: a still face's brow
                // furrow rose 20 points). Measured on a still Pointing'04 face: one pass left a 7-point drift over
                // the first second, three passes 1 point.
                var mesh = first
                for _ in 0..<3 {
                    let refined = try mesher.mesh(in: frame, region: FaceRegion(mesh: mesh.points))
                    guard refined.presence >= options.minimumPresence else { break }
                    mesh = refined
                }
                let faceId = state.ids.take()
                let new = measured(
                    faceId, filters: [], mesh: mesh, at: frame.timestamp, confidence: detection.confidence)
                unique.append(new)
                state.tracks.append(new.track)
                events.append(.found(faceId: faceId))
            }
        }
        return (unique.map(\.face), events)
    }

    /// The mesh presence (0...1) a whole picture must reach, in its own crop and in its mesh's, to be read as
    /// a face when the detector found none (`DetectionOptions.wholePictureFallback`).
    ///
    /// Higher than `TrackingOptions.minimumPresence` because no detector vouches for it. On the evaluation
    /// data the face crops the detector misses reach 0.99 and more (77 of muxspace's 95 misses reach 0.5 and
    /// 76 of them 0.9), while the most face-like non-face, a dark patch of skimage's LFW subset enlarged
    /// 4 x, reached 0.71 in both crops.
    package static let wholePicturePresence = 0.9

    /// Measures every face of `frame` on its own, with no memory of earlier frames (discrete images).
    ///
    /// IDs count from 0 within the frame. Each face is measured twice: first in the region the detector's
    /// box gives, then in the region that first mesh gives, which is what every tracked video frame
    /// after the first enjoys: a crop centred and aligned on the face itself rather than on the
    /// detector's coarser box.
    ///
    /// With `wholePictureFallback`, a frame where the detector finds nothing is tried as one face crop
    /// (`FaceRegion.init(wholePicture:)`), kept if both its mesh and the mesh of the crop that first mesh
    /// gives reach `wholePicturePresence`.
    package func analyseStill(_ frame: Frame, wholePictureFallback: Bool = false) throws -> [TrackedFace] {
        var faces: [TrackedFace] = []
        let detections = try detector.detect(in: frame)
        // (region, detector confidence); the whole picture has no detector confidence: its mesh presence
        // stands in.
        var candidates: [(region: FaceRegion, confidence: Double?)] = detections.map {
            (FaceRegion(detection: $0), $0.confidence)
        }
        if candidates.isEmpty && wholePictureFallback {
            candidates = [(FaceRegion(wholePicture: frame), nil)]
        }
        let firsts = try mesher.meshes(in: frame, regions: candidates.map(\.region))
        let found = zip(candidates, firsts).filter {
            $0.1.presence >= ($0.0.confidence == nil ? Self.wholePicturePresence : options.minimumPresence)
        }
        let refinedMeshes = try mesher.meshes(in: frame, regions: found.map { FaceRegion(mesh: $0.1.points) })
        for ((candidate, first), refined) in zip(found, refinedMeshes) {
            // The whole picture has no detector behind it, so it must be a face twice: also in the crop its
            // own mesh gives. A face stays a face when looked at again around itself; a texture that fooled
            // the mesh once (fur, foliage, shadow) rarely does.
            if candidate.confidence == nil && refined.presence < Self.wholePicturePresence { continue }
            let mesh = refined.presence >= options.minimumPresence ? refined : first
            let fit = poseEstimator?.fit(points: mesh.points)
            var face = TrackedFace(
                faceId: faces.count, bounds: mesh.bounds, confidence: candidate.confidence ?? mesh.presence,
                mesh: mesh, pose: fit?.pose)
            face.poseFit = fit?.fit
            faces.append(face)
        }
        return faces
    }

    /// The track of face `faceId` after a new raw mesh: next region from the raw points (so the crop
    /// follows the face without smoothing lag), smoothed points for the result.
    ///
    /// `filters` carry the smoothing state from earlier frames (empty for a new face).
    private func measured(
        _ faceId: Int, filters: [OneEuroFilter], mesh: FaceMesh, at time: Double, confidence: Double
    ) -> (track: Track, face: TrackedFace) {
        var filters = filters
        var smoothed = mesh
        if let parameters = options.smoothing {
            if filters.isEmpty {
                filters = Array(repeating: OneEuroFilter(parameters: parameters), count: mesh.points.count * 3)
            }
            let box = mesh.bounds
            let speedScale = 1 / max((box.width + box.height) / 2, 1)
            for (i, p) in mesh.points.enumerated() {
                smoothed.points[i] = Point3D(
                    x: filters[3 * i].filter(p.x, at: time, speedScale: speedScale),
                    y: filters[3 * i + 1].filter(p.y, at: time, speedScale: speedScale),
                    z: filters[3 * i + 2].filter(p.z, at: time, speedScale: speedScale))
            }
        }
        let fit = poseEstimator?.fit(points: smoothed.points)
        var face = TrackedFace(
            faceId: faceId, bounds: smoothed.bounds, confidence: confidence, mesh: smoothed, pose: fit?.pose)
        face.poseFit = fit?.fit
        return (Track(faceId: faceId, region: FaceRegion(mesh: mesh.points), filters: filters), face)
    }
}
