import MienCore
import Testing

@Suite("One-Euro filter")
struct OneEuroFilterTests {
    @Test func steadySignalWithJitter_isSmoothed_andAStepIsFollowed() {
        var filter = OneEuroFilter(parameters: .init(minimumCutoff: 1, beta: 0.05, derivativeCutoff: 1))
        var outputs: [Double] = []
        for i in 0..<300 {
            let jitter = i % 2 == 0 ? 1.0 : -1.0  // ±1 px of alternating noise around 100
            outputs.append(filter.filter(100 + jitter, at: Double(i) / 30))
        }
        let tail = outputs.suffix(100)
        #expect(tail.max()! - tail.min()! < 0.5, "noise of 2 px peak to peak shrinks below 0.5 px")
        // A 50-pixel jump is followed to within 1 px in a third of a second.
        var last = 0.0
        for i in 300..<310 { last = filter.filter(150, at: Double(i) / 30) }
        #expect(abs(last - 150) < 1)
    }

    @Test func firstValuePassesThrough_andTimeThatDoesNotAdvanceChangesNothing() {
        var filter = OneEuroFilter(parameters: .mediaPipeFaceLandmarks)
        #expect(filter.filter(42, at: 1) == 42)
        #expect(filter.filter(80, at: 1) == 42)
    }
}

@Suite("Face counter (EnableX stream)")
struct FaceCounterTests {
    @Test func countStepsOnce_whenASecondFaceAppears_despiteFlicker() {
        var counter = FaceCounter(settleTime: 0.5)
        var raw = Array(repeating: 1, count: 30) + Array(repeating: 2, count: 60)
        raw[40] = 1  // one missed frame after the new face appeared
        raw[75] = 3  // one false detection
        var changes: [(from: Int?, to: Int)] = []
        var statuses: [FaceCounter.Status] = []
        for (i, count) in raw.enumerated() {
            let update = counter.update(count: count, faceLost: false, at: Double(i) / 30)
            statuses.append(update.status)
            if let from = update.totalFacesChangedFrom { changes.append((from, update.totalFaces)) }
        }
        #expect(changes.count == 1 && changes.first?.from == 1 && changes.first?.to == 2)
        #expect(statuses.first == .initializing && statuses.last == .trackingOK)
    }

    @Test func lostFace_reportsRecovering_untilTheCountSettles() {
        var counter = FaceCounter(settleTime: 0.5)
        for i in 0..<30 { _ = counter.update(count: 1, faceLost: false, at: Double(i) / 30) }
        #expect(counter.update(count: 0, faceLost: true, at: 1.0).status == .recovering)
        var last = counter.update(count: 0, faceLost: false, at: 1.1)
        for i in 0..<30 { last = counter.update(count: 0, faceLost: false, at: 1.2 + Double(i) / 30) }
        #expect(last.status == .trackingOK && last.totalFaces == 0)
    }
}

/// A detector that reports a scripted list of boxes for each call.
private final class ScriptedDetector: FaceDetecting {
    var boxes: [Rect] = []
    private(set) var calls = 0
    func detect(in frame: Frame) throws -> [FaceDetection] {
        calls += 1
        return boxes.map { box in
            let eyes = [
                Point(x: box.minX + box.width * 0.3, y: box.minY + box.height * 0.4),
                Point(x: box.minX + box.width * 0.7, y: box.minY + box.height * 0.4),
            ]
            return FaceDetection(bounds: box, keypoints: eyes + Array(repeating: box.center, count: 4), confidence: 0.9)
        }
    }
}

/// A mesher that "sees" a face wherever the script says one is: a square grid of points around the
/// nearest scripted face, presence 0 when the region holds none.
private final class ScriptedMesher: FaceMeshEstimating {
    var faces: [Rect] = []
    func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh {
        guard let face = faces.first(where: { region.boundingBox.contains($0.center) }) else {
            return FaceMesh(
                points: Array(repeating: Point3D(x: 0, y: 0, z: 0), count: 478), presence: 0, region: region)
        }
        var points = (0..<478).map { i in
            Point3D(
                x: face.minX + Double(i % 22) / 21 * face.width, y: face.minY + Double(i / 22) / 21 * face.height, z: 0)
        }
        points[FaceLandmark.rightEyeOuterCorner] = Point3D(
            x: face.minX + face.width * 0.2, y: face.minY + face.height * 0.4, z: 0)
        points[FaceLandmark.leftEyeOuterCorner] = Point3D(
            x: face.minX + face.width * 0.8, y: face.minY + face.height * 0.4, z: 0)
        return FaceMesh(points: points, presence: 0.95, region: region)
    }
}

@Suite("Face tracker")
struct FaceTrackerTests {
    private func frame(_ index: Int) throws -> Frame {
        try Frame(
            width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 192), timestamp: Double(index) / 30, index: index)
    }

    private func tracker(_ detector: ScriptedDetector, _ mesher: ScriptedMesher) throws -> FaceTracker {
        FaceTracker(
            options: try TrackingOptions(smoothing: nil), maximumFaces: 5, detector: detector, mesher: mesher,
            poseEstimator: nil)
    }

    /// The face every single-face scenario starts with, in frame pixels.
    private let face = Rect(x: 100, y: 100, width: 60, height: 60)

    /// A tracker whose scripted detector and mesher both see `face`.
    private func singleFace() throws -> (ScriptedDetector, ScriptedMesher, FaceTracker) {
        let detector = ScriptedDetector()
        let mesher = ScriptedMesher()
        detector.boxes = [face]
        mesher.faces = [face]
        return (detector, mesher, try tracker(detector, mesher))
    }

    @Test func faceKeepsItsId_theDetectorRunsOnlyAtItsInterval_andLossIsReported() throws {
        let (detector, mesher, tracker) = try singleFace()
        var events: [FaceEvent] = []
        for i in 0..<60 {
            let (faces, changes) = try tracker.update(frame(i))
            events += changes
            #expect(faces.map(\.faceId) == [0])
        }
        #expect(events == [.found(faceId: 0)])
        // 60 frames at 30 fps with a 0.5 s interval: the first frame plus one run every 15 frames.
        #expect(detector.calls == 4)
        mesher.faces = []
        detector.boxes = []
        let (faces, changes) = try tracker.update(frame(60))
        #expect(faces.isEmpty && changes == [.lost(faceId: 0)])
    }

    @Test func idsStartAtTheGivenFirst_andResetStartsThereAgain() throws {
        let detector = ScriptedDetector()
        let mesher = ScriptedMesher()
        detector.boxes = [face]
        mesher.faces = [face]
        let tracker = FaceTracker(
            options: try TrackingOptions(smoothing: nil), maximumFaces: 5, detector: detector, mesher: mesher,
            poseEstimator: nil, firstFaceId: 7)
        #expect(try tracker.update(frame(0)).events == [.found(faceId: 7)])
        tracker.reset()
        #expect(try tracker.update(frame(1)).events == [.found(faceId: 7)], "reset counts from the first ID again")
        var ids = FaceIdAllocator(startingAt: 3)
        #expect([ids.take(), ids.take()] == [3, 4])
        ids.reset()
        #expect(ids.take() == 3 && FaceIdAllocator(startingAt: -2).first == 0)
    }

    @Test func secondFace_getsTheNextId_andCrossingDuplicatesKeepTheOlderId() throws {
        let detector = ScriptedDetector()
        let mesher = ScriptedMesher()
        let a = Rect(x: 50, y: 100, width: 60, height: 60)
        let b = Rect(x: 300, y: 100, width: 60, height: 60)
        detector.boxes = [a]
        mesher.faces = [a]
        let tracker = try tracker(detector, mesher)
        _ = try tracker.update(frame(0))
        detector.boxes = [a, b]
        mesher.faces = [a, b]
        var seen: [FaceEvent] = []
        for i in 1...16 { seen += try tracker.update(frame(i)).events }
        #expect(seen == [.found(faceId: 1)])
        // Face 1 walks in front of face 0: both regions now see the same face.
        mesher.faces = [a]
        let (faces, events) = try tracker.update(frame(17))
        #expect(faces.map(\.faceId) == [0] && events == [.lost(faceId: 1)])
    }

    @Test func wholePictureFallback_readsAnUndetectedFaceCrop_onlyWhenAskedAndWhenTheMeshSeesAFace() throws {
        let detector = ScriptedDetector()
        let mesher = ScriptedMesher()
        let tracker = try tracker(detector, mesher)
        // A 200 x 200 picture filled by a face the detector does not see.
        let picture = try Frame(width: 200, height: 200, pixels: [UInt8](repeating: 0, count: 200 * 200 * 3))
        mesher.faces = [Rect(x: 10, y: 10, width: 180, height: 180)]
        #expect(try tracker.analyseStill(picture).isEmpty, "off by default")
        let faces = try tracker.analyseStill(picture, wholePictureFallback: true)
        #expect(faces.count == 1)
        #expect(faces.first?.confidence == 0.95, "the mesh's presence stands in for the detector's confidence")
        // The whole picture is tried only when nothing is detected, and kept only if the mesh sees a face.
        mesher.faces = []
        #expect(try tracker.analyseStill(picture, wholePictureFallback: true).isEmpty)
        detector.boxes = [face]
        mesher.faces = [face]
        let detected = try tracker.analyseStill(picture, wholePictureFallback: true)
        #expect(detected.count == 1 && detected.first?.confidence == 0.9)
    }

    @Test func reset_startsIdsAgainFromZero() throws {
        let (_, mesher, tracker) = try singleFace()
        _ = try tracker.update(frame(0))
        mesher.faces = []
        _ = try tracker.update(frame(1))
        mesher.faces = [face]
        #expect(try tracker.update(frame(2)).faces.map(\.faceId) == [1])
        tracker.reset()
        #expect(try tracker.update(frame(3)).faces.map(\.faceId) == [0])
    }
}
