/// How OpenVINO runs one network: threads, streams and its performance hint.
///
/// Each network gets its own settings because they differ in size by two orders of magnitude: FaceMesh
/// (about 1.9 ms on one thread) gains from a second thread when it runs alone, while the blendshape and
/// BlazeFace networks (0.3–0.6 ms) only lose time handing work to a second thread (measured on the 2-core
/// machine, `docs`-free: see README "Performance").
public struct InferenceSettings: Sendable, Hashable {
    /// Threads one inference may use (at least 1).
    public var threads: Int
    /// Parallel streams inside the compiled model (1: one inference at a time per request, the lowest
    /// latency; several faces run on several requests instead).
    public var streams: Int

    /// - Throws: `MienError.invalidOptions` when `threads` or `streams` is below 1.
    public init(threads: Int = 1, streams: Int = 1) {
        self.threads = max(1, threads)
        self.streams = max(1, streams)
    }

    /// One thread, one stream: what every network uses unless its stage says otherwise.
    public static let singleThread = InferenceSettings()

    /// The OpenVINO properties these settings stand for.
    var properties: [String: String] {
        [
            "PERFORMANCE_HINT": "LATENCY",
            // OpenVINO would pick bfloat16 on CPUs with AVX512_BF16 or AMX (the 2-core machine has it):
            // faster, but it moved the sample's expression scores by up to 6.5 points. Mien's numbers are
            // validated in float32, so float32 it is.
            "INFERENCE_PRECISION_HINT": "f32",
            "INFERENCE_NUM_THREADS": String(threads),
            "NUM_STREAMS": String(streams),
        ]
    }
}
