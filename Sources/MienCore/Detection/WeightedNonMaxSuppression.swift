/// MediaPipe's weighted non-maximum suppression (`NonMaxSuppressionCalculator`, algorithm WEIGHTED).
///
/// Plain NMS keeps the best box of a cluster and throws the rest away; the weighted variant averages
/// every box of the cluster, weighted by score, which steadies boxes from frame to frame. The cluster
/// keeps the best score.
package struct WeightedNonMaxSuppression: Sendable {
    /// Two detections belong to one cluster when their IoU exceeds this (0...1).
    package var threshold: Double

    package init(threshold: Double) { self.threshold = threshold }

    /// Clusters `detections` and returns one detection per cluster, most confident first, at most
    /// `limit` of them.
    package func apply(_ detections: [FaceDetection], limit: Int = .max) -> [FaceDetection] {
        var remaining = detections.sorted { $0.confidence > $1.confidence }
        var kept: [FaceDetection] = []
        while let best = remaining.first, kept.count < limit {
            var cluster = [best]
            var rest: [FaceDetection] = []
            for candidate in remaining.dropFirst() {
                if best.bounds.iou(candidate.bounds) > threshold {
                    cluster.append(candidate)
                } else {
                    rest.append(candidate)
                }
            }
            kept.append(Self.weightedAverage(of: cluster, best: best))
            remaining = rest
        }
        return kept
    }

    private static func weightedAverage(of cluster: [FaceDetection], best: FaceDetection) -> FaceDetection {
        let total = cluster.reduce(0) { $0 + $1.confidence }
        guard total > 0 else { return best }
        var minX = 0.0
        var minY = 0.0
        var maxX = 0.0
        var maxY = 0.0
        var keypoints = [Point](repeating: .zero, count: best.keypoints.count)
        for detection in cluster {
            let w = detection.confidence / total
            minX += detection.bounds.minX * w
            minY += detection.bounds.minY * w
            maxX += detection.bounds.maxX * w
            maxY += detection.bounds.maxY * w
            for k in keypoints.indices where k < detection.keypoints.count {
                keypoints[k].x += detection.keypoints[k].x * w
                keypoints[k].y += detection.keypoints[k].y * w
            }
        }
        return FaceDetection(
            bounds: Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY), keypoints: keypoints,
            confidence: best.confidence)
    }
}
