import Mien

/// Starts `detector` and reads its `results` until `count` have come, then stops it (a live source never
/// ends by itself); returns them in order.
func collectResults(of detector: Detector, count: Int) async throws -> [DetectorResult] {
    // Read before start(): the sequence is fed from the moment it is first asked for.
    let stream = detector.results
    try detector.start()
    var results: [DetectorResult] = []
    for await result in stream {
        results.append(result)
        if results.count == count { detector.stop() }
    }
    return results
}
