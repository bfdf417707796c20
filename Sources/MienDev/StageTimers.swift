import Mien

/// Accumulated time and calls of one stage.
final class StageClock {
    private(set) var milliseconds = 0.0
    private(set) var calls = 0
    private let clock = ContinuousClock()

    /// Times `body`, counted as `count` calls (a batch of faces measured together counts per face, so
    /// the milliseconds per call are wall-clock time per face).
    func measure<T>(count: Int = 1, _ body: () throws -> T) rethrows -> T {
        let start = clock.now
        defer {
            milliseconds += (clock.now - start).milliseconds
            calls += count
        }
        return try body()
    }
}

/// A detector that times the one it wraps.
final class TimedDetector: FaceDetecting {
    let inner: any FaceDetecting
    let clock = StageClock()
    init(_ inner: any FaceDetecting) { self.inner = inner }
    func detect(in frame: Frame) throws -> [FaceDetection] { try clock.measure { try inner.detect(in: frame) } }
}

/// A mesher that times the one it wraps.
final class TimedMesher: FaceMeshEstimating {
    let inner: any FaceMeshEstimating
    let clock = StageClock()
    init(_ inner: any FaceMeshEstimating) { self.inner = inner }
    func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh {
        try clock.measure { try inner.mesh(in: frame, region: region) }
    }
    func meshes(in frame: Frame, regions: [FaceRegion]) throws -> [FaceMesh] {
        try clock.measure(count: regions.count) { try inner.meshes(in: frame, regions: regions) }
    }
}

/// A blendshape estimator that times the one it wraps.
final class TimedBlendshapes: BlendshapeEstimating {
    let inner: any BlendshapeEstimating
    let clock = StageClock()
    init(_ inner: any BlendshapeEstimating) { self.inner = inner }
    func blendshapes(points: [Point3D]) throws -> Blendshapes {
        try clock.measure { try inner.blendshapes(points: points) }
    }
}
