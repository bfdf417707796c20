/// A frame between the detector's two halves, the one type that carries it there: located (the second half
/// measures its faces), already finished by the first half, or an input item that failed.
enum LocatedFrame: Sendable {
    /// Detection, mesh, pose and tracking done; expressions, emotions and appearance still to measure.
    case located(FrameAnalysis, FrameInbox.Arrival)
    /// Its result is final: left out by the rate cap or dropped for a newer frame (unprocessed), or found by
    /// the detector alone (`DetectorOptions.detectionOnly`). `frame` is there for writers that draw on it.
    case finished(DetectorResult, frame: Frame?, FrameInbox.Arrival)
    /// An item of the input that could not be read or located; with its unprocessed result when it had taken a
    /// frame index (a pushed frame that did not decode), so the numbering has no gap.
    case failed(MienError, FrameInbox.Arrival?, unprocessed: DetectorResult? = nil)
}
