/// Finds the episodes of one score of one face, frame by frame on stream time (`EpisodeOptions`).
///
/// Feed it every frame of the face in order with `update(_:at:)`. A nil score (the face could not be
/// measured on that frame, or the frame was not analysed) suspends an episode rather than ending it: the
/// episode goes on and its apex is kept. `end(at:because:)` closes whatever is open when the face is lost,
/// the shot cuts or the input ends.
///
/// What it reports, as `Change`s:
/// - `started`: an episode has lasted `minimumDuration` (reported then, with its onset time; a blip shorter
///   than that is never reported);
/// - `finished`: the episode is over (for a fall, once `mergeGap` has passed without the score coming back).
///
/// A value type: a copy is a snapshot, so a caller can keep one per face and metric in a dictionary.
package struct EpisodeDetector: Sendable, Equatable, Codable {
    /// What happened to the episode on this frame.
    package enum Change: Sendable, Equatable {
        /// An episode reached its minimum duration: `onset` is when it started, `apex` so far.
        case started(onset: Double, apex: Double, apexValue: Double)
        /// An episode is over.
        case finished(Episode)
    }

    package let options: EpisodeOptions

    /// The open episode: its onset and apex so far, whether it has been reported, and when it fell below
    /// the off threshold (nil while it is above).
    private struct Open: Sendable, Equatable, Codable {
        var onset: Double
        var apex: Double
        var apexValue: Double
        var reported = false
        var fell: Double?
    }

    private var open: Open?
    private var lastTime: Double?
    /// Timestamps are sums of frame intervals: durations and gaps are compared to a microsecond.
    ///
    /// A duration within a microsecond of the minimum meets it, and a gap within a microsecond of the merge gap
    /// is within it. Without this, whether a fall exactly one merge
    /// gap long splits an episode depended on where the stream's clock started (0.96 − 0.76 < 0.2 but
    /// 2.96 − 2.76 > 0.2 in doubles), so the same footage later in a recording gave other episodes.
    private static let tolerance = 1e-6

    package init(options: EpisodeOptions) { self.options = options }

    /// Whether an episode is on (started, not yet fallen below the off threshold).
    package var isOn: Bool { open.map { $0.fell == nil } ?? false }

    /// The next frame's score (0...100), or nil when it could not be measured; `time` in seconds.
    ///
    /// Frames must come in time order; a frame not after the previous one is ignored.
    package mutating func update(_ value: Double?, at time: Double) -> [Change] {
        if let lastTime, time <= lastTime { return [] }
        lastTime = time
        var changes: [Change] = []
        // A fall that has outlasted the merge gap is final, whatever this frame says.
        if let fell = open?.fell, time - fell > options.mergeGap + Self.tolerance {
            changes += close(at: fell, because: .fell)
        }
        guard let value else { return changes }
        if var episode = open {
            if let fell = episode.fell {
                // Fallen, within the merge gap: back at `on` continues the same episode.
                if value >= options.on && time - fell <= options.mergeGap + Self.tolerance { episode.fell = nil }
            } else if value < options.off {
                episode.fell = time
            }
            if value > episode.apexValue {
                episode.apex = time
                episode.apexValue = value
            }
            open = episode
        } else if value >= options.on {
            open = Open(onset: time, apex: time, apexValue: value)
        }
        if var episode = open, !episode.reported, episode.fell == nil,
            time - episode.onset >= options.minimumDuration - Self.tolerance
        {
            episode.reported = true
            open = episode
            changes.append(.started(onset: episode.onset, apex: episode.apex, apexValue: episode.apexValue))
        }
        return changes
    }

    /// Ends the open episode, if any, at `time` (the face lost, a cut, the input's end).
    ///
    /// An episode that had already fallen ends at its fall, as `.fell`; one still on ends at `time` for
    /// `reason`. Afterwards the detector starts afresh (a face that comes back starts new episodes).
    package mutating func end(at time: Double, because reason: Episode.Ending) -> [Change] {
        defer { lastTime = nil }
        guard let episode = open else { return [] }
        if let fell = episode.fell { return close(at: fell, because: .fell) }
        return close(at: time, because: reason)
    }

    /// Closes the open episode at `offset`: reported when it lasted at least the minimum duration.
    private mutating func close(at offset: Double, because ending: Episode.Ending) -> [Change] {
        guard let episode = open else { return [] }
        open = nil
        guard offset - episode.onset >= options.minimumDuration - Self.tolerance else { return [] }
        let finished = Episode(
            onset: episode.onset, apex: episode.apex, apexValue: episode.apexValue, offset: offset, ending: ending)
        // A short episode that reached its minimum only by its end is reported started and finished at once.
        let started: [Change] =
            episode.reported
            ? [] : [.started(onset: episode.onset, apex: episode.apex, apexValue: episode.apexValue)]
        return started + [.finished(finished)]
    }
}
