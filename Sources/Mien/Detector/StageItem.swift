/// What the first stage hands the second for one inbox entry, the one type that crosses between them: a frame
/// to measure, a result already final, or an item that could not be read or located.
enum StageItem: Sendable {
    /// Detection, mesh, pose and tracking done; expressions, emotions and appearance still to measure.
    case toMeasure(FrameAnalysis, FrameInbox.Arrival)
    /// Its result is final: left out by the rate cap or dropped for a newer frame (unprocessed), or found by
    /// the detector alone (`DetectorOptions.detectionOnly`). `frame` is there for writers that draw on it.
    case final(DetectorResult, frame: Frame?, FrameInbox.Arrival)
    /// An item of the input that could not be read, decoded or located; with its unprocessed result when it had
    /// taken a frame index (a pushed frame that did not decode), so the numbering has no gap.
    case unusable(MienError, FrameInbox.Arrival?, unprocessed: DetectorResult? = nil)
}

/// Whether the run takes the next item after one was handled.
enum ItemOutcome {
    /// The input goes on.
    case goesOn
    /// The run ended on this item's failure.
    case runEnded
}
