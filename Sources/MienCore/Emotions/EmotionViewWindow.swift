/// One face's CNN views over the last frames of a stream: which view to run next, and the mean of the
/// latest probabilities of each view.
///
/// Why: a picture is scored on all of the CNN's views (3 crop sizes, each with its mirror image: 6 runs).
/// In video, consecutive frames are nearly the same picture, so running a different view on each frame
/// and averaging the last `viewCount` frames gives the same multi-view estimate for a third of the cost
/// (measured: 720p, every metric, 1 face, see docs/performance.md). The price is a lag of about one
/// frame on a change of expression (the window spans `viewCount` frames: 0.1 s at 30 frames/s), which
/// is below the onset time of a facial expression.
package struct EmotionViewWindow: Sendable, Equatable, Codable {
    /// The latest probabilities of each view, by view index.
    private var latest: [Int: [Double]] = [:]
    /// Frames scored so far.
    package private(set) var frames = 0

    package init() {}

    /// The view to run on the next frame when the classifier has `viewCount` views.
    package func nextView(of viewCount: Int) -> Int { frames % max(viewCount, 1) }

    /// Records the probabilities of `view` for this frame and returns the mean of the latest result of
    /// every view still valid (views at or above `viewCount` are forgotten).
    package mutating func add(_ probabilities: [Double], view: Int, viewCount: Int) -> [Double] {
        latest[view] = probabilities
        latest = latest.filter { $0.key < viewCount }
        frames += 1
        var sum = [Double](repeating: 0, count: probabilities.count)
        for scores in latest.values where scores.count == sum.count { sum = zip(sum, scores).map(+) }
        return sum.map { $0 / Double(latest.count) }
    }
}
