/// How faces are followed from frame to frame.
///
/// Validated when created.
package struct TrackingOptions: Sendable, Equatable, Codable {
    /// A tracked face whose mesh presence (0...1) falls below this is lost.
    ///
    /// Default 0.5, MediaPipe's
    /// `min_tracking_confidence`.
    package var minimumPresence: Double
    /// While fewer than `maximumFaces` are tracked, the detector looks for new faces at least this
    /// often, seconds.
    ///
    /// Default 0.5 s: a face walking in is picked up within half a second, at the cost
    /// of one detector run (about 2.5 ms at 720p) every 15 frames of 30 fps video.
    package var detectionInterval: Double
    /// Two tracks whose mesh boxes overlap by more than this IoU are one face: the younger track is
    /// dropped (see `FaceTracker`).
    ///
    /// Default 0.5.
    package var duplicateOverlap: Double
    /// A detection overlapping a tracked face's box by more than this IoU is that face, not a new one.
    ///
    /// Default 0.3.
    package var detectionOverlap: Double
    /// Temporal smoothing of the mesh points (and so of the pose); nil turns it off.
    ///
    /// Default: MediaPipe's face-landmark One-Euro parameters.
    package var smoothing: OneEuroFilter.Parameters?

    /// - Throws: `MienError.Code.invalidOptions` for values out of range.
    package init(
        minimumPresence: Double = 0.5, detectionInterval: Double = 0.5, duplicateOverlap: Double = 0.5,
        detectionOverlap: Double = 0.3, smoothing: OneEuroFilter.Parameters? = .mediaPipeFaceLandmarks
    ) throws {
        guard (0...1).contains(minimumPresence) else {
            throw MienError(.invalidOptions, "minimumPresence must be 0...1, got \(minimumPresence)")
        }
        guard detectionInterval >= 0, detectionInterval.isFinite else {
            throw MienError(.invalidOptions, "detectionInterval must be >= 0 seconds, got \(detectionInterval)")
        }
        guard duplicateOverlap > 0, duplicateOverlap <= 1, detectionOverlap > 0, detectionOverlap <= 1 else {
            throw MienError(.invalidOptions, "overlap thresholds must be in (0, 1]")
        }
        if let smoothing {
            guard smoothing.minimumCutoff > 0, smoothing.beta >= 0, smoothing.derivativeCutoff > 0 else {
                throw MienError(.invalidOptions, "smoothing needs minimumCutoff > 0, beta >= 0, derivativeCutoff > 0")
            }
        }
        self.minimumPresence = minimumPresence
        self.detectionInterval = detectionInterval
        self.duplicateOverlap = duplicateOverlap
        self.detectionOverlap = detectionOverlap
        self.smoothing = smoothing
    }
}
