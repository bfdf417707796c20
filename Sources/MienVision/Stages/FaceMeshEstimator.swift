import Foundation
package import MienCore

/// Runs MediaPipe's FaceMesh v2 on an upright 256 x 256 crop of a face region and maps its 478 points
/// back to frame pixels.
///
/// Several faces of one frame are measured on `lanes` threads at once, each with its own infer request
/// on one compiled model that has a stream per lane (`ModelDescriptor.inferenceSettings`). Measured on
/// the 2-core machine with OpenVINO: 4 faces took 5.0 ms on 2 requests and 2 streams, 5.1 ms as one
/// batch of 4 on 2 threads, 8.7 ms one after the other; lanes keep one code path for any number of faces.
///
/// When nothing is measured after the mesh (no expressions, emotions or appearance), the pipeline's
/// second thread has no work, so the mesh instead runs each face on all `lanes` threads, one face after
/// another (`inferenceSettings(aloneInPipeline:)`).
///
/// - Important: Not reentrant: one call at a time.
package final class FaceMeshEstimator: FaceMeshEstimating {
    /// The model's input side in pixels.
    package static let inputSize = 256
    /// Threads (and infer requests) used for several faces: the machine's cores, at most 2 (measured on
    /// the 2-core machine).
    package static let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 2))
    private let network: NeuralNetwork
    private var extraNetworks: [NeuralNetwork] = []
    /// The serial queues the lanes after the first run on.
    ///
    /// Lane k > 0 runs on `laneQueues[k - 1]`, a queue of its own, lane 0 on the calling thread (a run's).
    /// Not `concurrentPerform`: on Linux its other iterations run on Dispatch's global threads, which are Swift's
    /// cooperative pool, so a service's sockets waited behind a face's mesh (`BlockingWork`).
    private var laneQueues: [DispatchQueue] = []
    /// MediaPipe's landmark-model normalisation: RGB, pixel / 255.
    private static let spec = TensorSpec(
        width: inputSize, height: inputSize, channels: 3, rgb: true, scale: 1 / 255, offset: 0, border: 0)

    /// Whether several faces run on lanes (the compiled model has a stream per lane).
    private let usesLanes: Bool

    /// Loads and verifies the mesh model.
    /// - Parameter aloneInPipeline: true when no stage measures the faces after the mesh (default false):
    ///   see `inferenceSettings(aloneInPipeline:)`.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    package init(models: ModelStore, aloneInPipeline: Bool = false) throws {
        let settings = Self.inferenceSettings(aloneInPipeline: aloneInPipeline)
        network = try NeuralNetwork(.faceMesh, store: models, settings: settings)
        usesLanes = settings.streams > 1
    }

    /// How OpenVINO runs the mesh.
    ///
    /// Beside the stages that measure faces (`aloneInPipeline` false): one thread per lane and a stream per
    /// lane, the model's own settings, because the measuring thread keeps the other core busy. Alone: one
    /// stream on `lanes` threads, since the core the measuring stages would use is free. Measured with
    /// `MienDev peer-bench` on the 2-core machine, 720p talking head, mesh + pose + tracking, alternating
    /// builds, three rounds: one face 244-253 fps with a thread per lane, 312-328 fps on both threads;
    /// four faces 102-106 against 92-115 fps (no change beyond noise). With every metric the two threads
    /// were no faster on one face and slower on four (60-73 against 84 fps), hence the two settings.
    package static func inferenceSettings(aloneInPipeline: Bool) -> InferenceSettings {
        aloneInPipeline
            ? InferenceSettings(threads: lanes, streams: 1) : ModelDescriptor.faceMesh.inferenceSettings
    }

    package func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh {
        try Self.mesh(in: frame, region: region, network: network)
    }

    package func meshes(in frame: Frame, regions: [FaceRegion]) throws -> [FaceMesh] {
        guard regions.count > 1, usesLanes else { return try regions.map { try mesh(in: frame, region: $0) } }
        while extraNetworks.count < Self.lanes - 1 { extraNetworks.append(try network.lane()) }
        while laneQueues.count < extraNetworks.count { laneQueues.append(DispatchQueue(label: "mien.mesh.lane")) }
        let work = LaneWork(networks: [network] + extraNetworks, count: regions.count)
        defer { work.release() }
        let lanes = DispatchGroup()
        for lane in 1..<work.networks.count {
            laneQueues[lane - 1].async(group: lanes) { work.run(lane: lane, frame: frame, regions: regions) }
        }
        work.run(lane: 0, frame: frame, regions: regions)
        lanes.wait()
        return try (0..<regions.count).map { index in
            guard let result = work.slots[index] else { throw MienError(.internalFailure, "a face was not measured") }
            return try result.get()
        }
    }

    fileprivate static func mesh(in frame: Frame, region: FaceRegion, network: NeuralNetwork) throws -> FaceMesh {
        let cropFromFrame = region.cropFromFrame(side: inputSize)
        guard let frameFromCrop = cropFromFrame.inverted else {
            throw MienError(.invalidArgument, "face region has no area")
        }
        let outputs = try network.run(frame, tensorFromFrame: cropFromFrame, spec: spec)
        guard outputs.count == 2, outputs[0].count == FaceLandmark.count * 3, let logit = outputs[1].first else {
            throw MienError(.modelInvalid, "unexpected mesh outputs", input: network.name)
        }
        let depthScale = region.size / Double(inputSize)
        var points: [Point3D] = []
        points.reserveCapacity(FaceLandmark.count)
        let raw = outputs[0]
        for i in 0..<FaceLandmark.count {
            let p = frameFromCrop.apply(Point(x: Double(raw[3 * i]), y: Double(raw[3 * i + 1])))
            points.append(Point3D(x: p.x, y: p.y, z: Double(raw[3 * i + 2]) * depthScale))
        }
        return FaceMesh(points: points, presence: logistic(Double(logit)), region: region)
    }
}

/// What the lanes of one `meshes(in:regions:)` call share.
private final class LaneWork: @unchecked Sendable {
    // Lane k alone uses networks[k] and writes slots k, k + lanes, ...; `meshes` waits for every lane's group
    // before it reads them, so the slots are read after the last write. Raw memory rather
    // than an array: concurrent writes to distinct elements of one array would be overlapping
    // accesses to the array itself.
    let networks: [NeuralNetwork]
    let slots: UnsafeMutablePointer<Result<FaceMesh, any Error>?>
    private let count: Int

    init(networks: [NeuralNetwork], count: Int) {
        self.networks = networks
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    /// Measures lane `lane`'s faces: `regions[lane]`, `regions[lane + lanes]`, ...
    func run(lane: Int, frame: Frame, regions: [FaceRegion]) {
        for index in stride(from: lane, to: regions.count, by: networks.count) {
            slots[index] = Result {
                try FaceMeshEstimator.mesh(in: frame, region: regions[index], network: networks[lane])
            }
        }
    }

    func release() {
        slots.deinitialize(count: count)
        slots.deallocate()
    }
}
