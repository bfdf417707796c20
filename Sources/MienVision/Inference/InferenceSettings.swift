/// How OpenVINO runs one network: threads and streams (the hint is always latency, the precision float32,
/// and no thread pinning).
///
/// Per network because they differ: the small networks (BlazeFace 0.4–0.6 ms, blendshapes 0.3 ms on one
/// thread) were slower on two threads (0.45 → 0.62 ms for the blendshapes), while the mesh runs the faces
/// of a frame on two streams at once (`ModelDescriptor.inferenceSettings`).
package struct InferenceSettings: Sendable, Hashable {
    /// Threads the compiled model may use in all (at least 1), shared among its streams.
    package var threads: Int
    /// Inferences the compiled model runs at once, one per infer request (at least 1; with 1, OpenVINO
    /// queues a second request behind the first).
    package var streams: Int

    /// Values below 1 become 1.
    package init(threads: Int = 1, streams: Int = 1) {
        self.threads = max(1, threads)
        self.streams = max(1, streams)
    }

    /// One thread, one stream: what every network uses unless its stage says otherwise.
    package static let singleThread = InferenceSettings()

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
            // OpenVINO pins each compiled model's stream threads to cores as if it had the machine to itself.
            // Mien runs several models beside its own decoding and stage threads, and pinned streams left a
            // core idle while others queued for theirs: every metric on the 2-core machine's 720p clip had the
            // CPUs 24 % idle, 13-15 % without pinning (`MienDev peer-bench`, /proc/stat); frames/s with
            // `VideoFileSource.analysisDecoderThreads`.
            "ENABLE_CPU_PINNING": "NO",
        ]
    }
}
